package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.cm.CmNodes.param;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.emulator.cm.RdmaCmHost.Footprint;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.wire.mad.CmAttribute;

/**
 * Many connect/disconnect cycles against one listener with 5% of the CM MADs dropped: every cycle
 * ends ESTABLISHED-then-DISCONNECTED or with a failure status, none hangs, and afterwards the CMs
 * hold nothing (no connection, no timer, only the listener's port) and the heap has not grown: what
 * the cycles after the first fifth retain (live heap after a full collection) stays under
 * {@link #HEAP_GROWTH_LIMIT}, far less than one QP per cycle would hold (~3.6 KiB each). 10,000
 * cycles, as the issue asks; about 4 s of wall time.
 */
class ConnectionCyclesTest {
    private static final int CYCLES = Integer.getInteger("roce4j.cm.cycles", 10_000);
    private static final long HEAP_GROWTH_LIMIT = 4L << 20;
    private static final Duration LONG = Duration.ofSeconds(300);

    @Test
    @DisplayName("10,000 connect/disconnect cycles, 5% of CM MADs dropped: each cycle connects and disconnects or fails with a status; nothing is left in the CMs and the heap stays flat")
    void tenThousandCyclesWithMadDrops() {
        try (CmNodes nodes = new CmNodes()) {
            nodes.fabric.faults(Faults.seeded(20261125).drop(0.05, FrameMatch.cm(CmAttribute.values())));
            nodes.listen(CmNodes.PORT, 16);
            Map<CmEventType, Integer> outcomes = new EnumMap<>(CmEventType.class);
            Verbs clientVerbs = null;
            Verbs serverVerbs = null;
            long heapAfterWarmUp = 0;
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                if (cycle == CYCLES / 5) {
                    heapAfterWarmUp = liveHeap();
                }
                CmId clientId = nodes.resolvedClient(CmNodes.PORT);
                if (clientVerbs == null) {
                    clientVerbs = new Verbs(clientId.verbs().orElseThrow());
                }
                clientId.createQp(clientVerbs.pd, clientVerbs.attr());
                clientId.connect(param(null));
                CmEvent request = next(nodes.server, EnumSet.of(CmEventType.CONNECT_REQUEST), cycle);
                CmId serverId = request.id();
                request.ack();
                if (serverVerbs == null) {
                    serverVerbs = new Verbs(serverId.verbs().orElseThrow());
                }
                serverId.createQp(serverVerbs.pd, serverVerbs.attr());
                serverId.accept(param(null));
                CmEvent clientOutcome = next(nodes.client,
                        EnumSet.of(CmEventType.ESTABLISHED, CmEventType.UNREACHABLE, CmEventType.REJECTED), cycle);
                CmEventType clientType = clientOutcome.type();
                clientOutcome.ack();
                CmEvent serverOutcome = next(nodes.server, EnumSet.of(CmEventType.ESTABLISHED, CmEventType.UNREACHABLE), cycle);
                CmEventType serverType = serverOutcome.type();
                serverOutcome.ack();
                if (clientType == CmEventType.ESTABLISHED && serverType == CmEventType.ESTABLISHED) {
                    clientId.disconnect();
                    next(nodes.server, EnumSet.of(CmEventType.DISCONNECTED), cycle).ack();
                    serverId.disconnect();
                    next(nodes.client, EnumSet.of(CmEventType.DISCONNECTED), cycle).ack();
                    next(nodes.client, EnumSet.of(CmEventType.TIMEWAIT_EXIT), cycle).ack();
                    next(nodes.server, EnumSet.of(CmEventType.TIMEWAIT_EXIT), cycle).ack();
                    outcomes.merge(CmEventType.DISCONNECTED, 1, Integer::sum);
                } else {
                    outcomes.merge(clientType == CmEventType.ESTABLISHED ? serverType : clientType, 1, Integer::sum);
                }
                clientId.destroyQp();
                serverId.destroyQp();
                clientId.close();
                serverId.close();
            }
            // Let every timewait and stray retry run out, then look for leftovers.
            nodes.fabric.runFor(Duration.ofSeconds(200));
            long heapGrowth = liveHeap() - heapAfterWarmUp;
            assertThat(heapGrowth).as("live heap growth over the last %d cycles", CYCLES - CYCLES / 5).isLessThan(HEAP_GROWTH_LIMIT);
            assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(CYCLES);
            assertThat(outcomes.get(CmEventType.DISCONNECTED)).as("outcomes %s", outcomes).isGreaterThan(CYCLES * 9 / 10);
            Footprint server = nodes.serverHost.footprint();
            Footprint client = nodes.clientHost.footprint();
            assertThat(server.connections()).isZero();
            assertThat(server.timers()).isZero();
            assertThat(server.boundPorts()).isEqualTo(1); // the listener
            assertThat(client.connections()).isZero();
            assertThat(client.timers()).isZero();
            assertThat(client.boundPorts()).isZero();
            assertThat(nodes.fabric.faultCounters().dropped()).isGreaterThan(0);
            System.out.println("cycles " + CYCLES + ": " + outcomes + ", MADs dropped " + nodes.fabric.faultCounters().dropped()
                    + ", virtual " + nodes.fabric.clock().nanoTime() / 1_000_000_000 + " s, live heap growth " + heapGrowth + " B, server "
                    + server + ", client " + client);
        }
    }

    /** Bytes of heap in use after full collections (System.gc() is a full collection on HotSpot's collectors). */
    private static long liveHeap() {
        var memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** The next event, which must be one of {@code expected}; a cycle that waits 300 virtual seconds has hung. */
    private static CmEvent next(EventChannel channel, EnumSet<CmEventType> expected, int cycle) {
        CmEvent event = channel.getEvent(LONG).orElseThrow(() -> new AssertionError("cycle " + cycle + ": no event, expected " + expected));
        assertThat(event.type()).as("cycle %d: %s (status %d)", cycle, event.type(), event.status()).isIn(expected);
        return event;
    }

    /** One PD and CQ per side for all cycles; a QP per connection. */
    private static final class Verbs {
        final Pd pd;
        final Cq cq;

        Verbs(Context context) {
            pd = context.allocPd();
            cq = context.createCq(256);
        }

        QpInitAttr attr() {
            return QpInitAttr.of(QpType.RC, cq, new QpCap(4, 4, 1, 1, 0));
        }
    }
}
