package org.roce4j.testkit;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.roce4j.emulator.cm.RdmaCmHost.RaisedEvent;
import org.roce4j.wire.FrameText;

/**
 * The rdma_cm events the test's nodes raised, in the order raised, one line each, for the failure
 * report: when, which node, the event, the id's local and peer address, the status. Filled from
 * the CM's threads (under a fabric lock): adding a line is all it does.
 */
final class CmEventLog {
    private final List<String> lines = new ArrayList<>();

    synchronized void record(String node, RaisedEvent event) {
        lines.add(line(node, event));
    }

    /** {@return the lines so far} */
    synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    /** {@code 6.144000000 s rxe1 ESTABLISHED 10.0.0.2:7174 → 10.0.0.1:48213 status 0} */
    static String line(String node, RaisedEvent event) {
        return String.format(Locale.ROOT, "%s %s %s %s → %s status %d", FrameText.seconds(event.atNanos()), node,
                event.type(), address(event.local()), address(event.peer()), event.status());
    }

    private static String address(InetSocketAddress address) {
        return address == null ? "?" : FrameText.address(address.getAddress()) + ":" + address.getPort();
    }
}
