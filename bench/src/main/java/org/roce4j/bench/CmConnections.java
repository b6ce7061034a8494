package org.roce4j.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.udp.UdpRnic;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;

/**
 * rdma_cm connections, one after another, from an emulated RNIC on the UDP link to one listener,
 * counted: {@link #prepare} (a new id, address and route resolved, its RC QP), {@link #connect} (REQ
 * to ESTABLISHED, what {@link CmConnectLatencyBenchmark} times), {@link #finish} (disconnect, wait
 * for DISCONNECTED, destroy). Every outcome other than ESTABLISHED is counted and thrown as an
 * {@link IllegalStateException} saying what came. A disconnect the peer does not answer in time is
 * counted and the id destroyed (the CM keeps it in timewait), but the run goes on: the connect it
 * followed was measured whole, and the disconnect is not what is measured.
 */
final class CmConnections implements AutoCloseable {
    /** rping's timeouts for rdma_resolve_addr / rdma_resolve_route. */
    static final Duration RESOLVE_TIMEOUT = Duration.ofSeconds(2);
    /**
     * How long a connect may take before it counts as failed: the CM retries a lost REQ after
     * 6144 ms (cm.c, cma.c's response timeout 20), so a few retries fit; 16 tries would take 98 s.
     */
    static final Duration CONNECT_PATIENCE = Duration.ofSeconds(30);
    /**
     * How long the peer may take to answer the DREQ. Linux answers it when its application calls
     * rdma_disconnect after DISCONNECTED; rping -s -P never does for a connection whose DISCONNECTED
     * came before its ESTABLISHED (the RTU lost: cma.c delivers DISCONNECTED from RDMA_CM_CONNECT
     * too, and rping's accept takes that event for the ESTABLISHED it waits for, then waits on).
     */
    static final Duration DISCONNECT_PATIENCE = Duration.ofSeconds(30);

    private final InetSocketAddress target;
    private final UdpRnic rnic;
    private final EventChannel channel;
    private final Duration disconnectPatience;
    private final CmId anchor;
    private final Pd pd;
    private final Cq cq;
    private CmId client;
    private boolean established;
    private long attempted;
    private long connected;
    private long disconnected;
    private long failed;
    private String firstFailure = "";
    private long unansweredDisconnects;
    private String firstUnanswered = "";

    private CmConnections(InetSocketAddress target, Duration disconnectPatience, UdpRnic rnic, EventChannel channel,
                          CmId anchor, Pd pd, Cq cq) {
        this.target = target;
        this.disconnectPatience = disconnectPatience;
        this.rnic = rnic;
        this.channel = channel;
        this.anchor = anchor;
        this.pd = pd;
        this.cq = cq;
    }

    /**
     * Opens an emulated RNIC on {@code localAddress} (UDP port 4791 there) with its own connection
     * manager, for connections to {@code target}.
     */
    static CmConnections open(InetSocketAddress target, String localAddress) throws IOException {
        return open(target, localAddress, DISCONNECT_PATIENCE);
    }

    /** {@link #open(InetSocketAddress, String)} with another patience for the peer's DREP. */
    static CmConnections open(InetSocketAddress target, String localAddress, Duration disconnectPatience) throws IOException {
        UdpRnic rnic = UdpRnic.open("emu0", localAddress);
        try {
            EventChannel channel = EmulatedCm.of(rnic.rnic()).createEventChannel();
            // An id bound to the address holds the device's context: the PD and CQ every connection's QP uses.
            CmId anchor = channel.createId(PortSpace.TCP);
            anchor.bindAddr(new InetSocketAddress(rnic.address(), 0));
            Context context = anchor.verbs().orElseThrow();
            Pd pd = context.allocPd();
            return new CmConnections(target, disconnectPatience, rnic, channel, anchor, pd, context.createCq(64));
        } catch (RuntimeException e) {
            rnic.close();
            throw e;
        }
    }

    /** A new id with its address and route resolved and an RC QP, ready to connect. */
    void prepare() {
        attempted++;
        client = channel.createId(PortSpace.TCP);
        established = false;
        client.resolveAddr(null, target, RESOLVE_TIMEOUT);
        expect(CmEventType.ADDR_RESOLVED, RESOLVE_TIMEOUT.multipliedBy(2));
        client.resolveRoute(RESOLVE_TIMEOUT);
        expect(CmEventType.ROUTE_RESOLVED, RESOLVE_TIMEOUT.multipliedBy(2));
        client.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 16)));
    }

    /** {@code rdma_connect} with rping's parameters, then the event that answers it: ESTABLISHED or a failure. */
    CmEventType connect() {
        client.connect(ConnParam.defaults());
        expect(CmEventType.ESTABLISHED, CONNECT_PATIENCE);
        established = true;
        connected++;
        return CmEventType.ESTABLISHED;
    }

    /** Disconnects an established connection (DREQ; DISCONNECTED when the DREP comes) and destroys the id. */
    void finish() {
        if (client == null) {
            return;
        }
        try {
            if (established) {
                client.disconnect();
                Optional<CmEvent> answer = next(disconnectPatience);
                if (answer.isEmpty()) {
                    unansweredDisconnects++;
                    if (firstUnanswered.isEmpty()) {
                        firstUnanswered = "connection " + attempted;
                    }
                } else {
                    require(CmEventType.DISCONNECTED, answer, disconnectPatience);
                    disconnected++;
                }
            }
        } finally {
            client.destroyQp();
            client.close();
            client = null;
        }
    }

    /** Takes the next event, which must be {@code wanted} for this connection's id, with status 0. */
    private void expect(CmEventType wanted, Duration patience) {
        require(wanted, next(patience), patience);
    }

    private Optional<CmEvent> next(Duration patience) {
        Optional<CmEvent> event = channel.getEvent(patience);
        event.ifPresent(CmEvent::ack);
        return event;
    }

    /** Anything but {@code wanted} for this id with status 0 (or nothing) is counted and thrown. */
    private void require(CmEventType wanted, Optional<CmEvent> came, Duration patience) {
        if (came.isPresent() && came.get().type() == wanted && came.get().status() == 0 && came.get().id() == client) {
            return;
        }
        failed++;
        String failure = "connection " + attempted + " to " + target + ": "
                + came.map(e -> e.type().cName() + " (status " + e.status() + ")").orElse("no event within " + patience.toSeconds() + " s")
                + " where " + wanted.cName() + " was due";
        if (firstFailure.isEmpty()) {
            firstFailure = failure;
        }
        throw new IllegalStateException(failure + "; " + tally());
    }

    /** {@return the count so far, as one line} */
    String tally() {
        return "rdma_cm to " + target + ": " + attempted + " connections tried, " + connected + " ESTABLISHED, " + disconnected
                + " DISCONNECTED, " + failed + " failed" + (firstFailure.isEmpty() ? "" : " (first: " + firstFailure + ")")
                + (unansweredDisconnects == 0 ? "" : ", " + unansweredDisconnects + " disconnects unanswered within "
                        + disconnectPatience.toSeconds() + " s (first: " + firstUnanswered + ")");
    }

    long connected() {
        return connected;
    }

    long failed() {
        return failed;
    }

    long unansweredDisconnects() {
        return unansweredDisconnects;
    }

    /** {@return the UDP link's counters (datagrams and drops each way)} */
    String linkCounters() {
        return "emu0 " + rnic.address().getHostAddress() + ": " + rnic.linkCounters();
    }

    @Override
    public void close() {
        if (client != null) {
            client.destroyQp();
            client.close();
        }
        EmulatedRcPair.closeInOrder(cq, pd, anchor, channel, rnic);
    }
}
