package org.roce4j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.Set;

import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.MacAddress;

/**
 * Two emulated RNICs on a deterministic fabric (the caller's thread drives everything through CQ
 * polls, as a single-threaded unit test would), with one RC queue pair connected between them.
 */
final class EmulatedRcPair implements AutoCloseable {
    static final Set<AccessFlag> ALL_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    final Fabric fabric = Fabric.deterministic();
    final Arena arena = Arena.ofShared();
    final Context contextA;
    final Context contextB;
    final Pd pdA;
    final Pd pdB;
    final Cq cqA;
    final Cq cqB;
    final MemorySegment memoryA;
    final MemorySegment memoryB;
    final Mr mrA;
    final Mr mrB;
    Qp qpA;
    Qp qpB;
    private final WorkCompletion[] completions = new WorkCompletion[64];

    EmulatedRcPair(long memoryBytes, int queueDepth, Mtu mtu) throws Exception {
        this(memoryBytes, queueDepth, mtu, DEFAULT_ACK_TIMEOUT, false);
    }

    private SoftRnic node(String name, String mac, String ipv4, boolean retryForever) throws Exception {
        return SoftRnic.builder(fabric).name(name).mac(MacAddress.parse(mac))
                .ipv4((Inet4Address) InetAddress.getByName(ipv4)).profile(retryForever ? DeviceProfile.RXE : DeviceProfile.IBTA).attach();
    }

    /**
     * @param ackTimeout the QPs' local ACK timeout exponent: 4.096 µs × 2^ackTimeout
     * @param retryForever retry_cnt 7 retries forever, as Linux rxe does (IBTA: seven retries)
     */
    EmulatedRcPair(long memoryBytes, int queueDepth, Mtu mtu, int ackTimeout, boolean retryForever) throws Exception {
        SoftRnic a = node("rxe0", "02:00:00:00:00:0a", "10.0.0.1", retryForever);
        SoftRnic b = node("rxe1", "02:00:00:00:00:0b", "10.0.0.2", retryForever);
        contextA = a.device().open();
        contextB = b.device().open();
        pdA = contextA.allocPd();
        pdB = contextB.allocPd();
        cqA = contextA.createCq(4 * queueDepth);
        cqB = contextB.createCq(4 * queueDepth);
        memoryA = arena.allocate(memoryBytes, 64);
        memoryB = arena.allocate(memoryBytes, 64);
        mrA = pdA.regMr(memoryA, ALL_ACCESS);
        mrB = pdB.regMr(memoryB, ALL_ACCESS);
        qpA = pdA.createQp(QpInitAttr.of(QpType.RC, cqA, QpCap.of(queueDepth, queueDepth)));
        qpB = pdB.createQp(QpInitAttr.of(QpType.RC, cqB, QpCap.of(queueDepth, queueDepth)));
        connect(qpA, qpB, contextA, contextB, mtu, ackTimeout);
    }

    /** The rdma-core examples' local ACK timeout: 4.096 µs × 2^14 ≈ 67 ms. */
    static final int DEFAULT_ACK_TIMEOUT = 14;

    /** Brings two RC QPs to RTS, each pointing at the other, as ibv_rc_pingpong does. */
    static void connect(Qp qpA, Qp qpB, Context contextA, Context contextB, Mtu mtu) {
        connect(qpA, qpB, contextA, contextB, mtu, DEFAULT_ACK_TIMEOUT);
    }

    static void connect(Qp qpA, Qp qpB, Context contextA, Context contextB, Mtu mtu, int ackTimeout) {
        Set<AccessFlag> remote = EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
        qpA.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(remote));
        qpB.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(remote));
        toRts(qpA, qpB.qpNum(), AhAttr.of(contextB.queryGid(1, 1), 1, 1), mtu, ackTimeout);
        toRts(qpB, qpA.qpNum(), AhAttr.of(contextA.queryGid(1, 1), 1, 1), mtu, ackTimeout);
    }

    private static void toRts(Qp qp, int peerQpn, AhAttr peer, Mtu mtu, int ackTimeout) {
        qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(mtu).destQpNum(peerQpn).rqPsn(0).ahAttr(peer)
                .maxDestRdAtomic(16).minRnrTimer(12));
        qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0).timeout(ackTimeout).retryCnt(7).rnrRetry(7)
                .maxRdAtomic(16));
    }

    /** Polls {@code cq} until {@code n} successful completions arrived; fails loudly on an error one. */
    int await(Cq cq, int n) {
        int got = 0;
        while (got < n) {
            int polled = cq.poll(completions);
            for (int i = 0; i < polled; i++) {
                if (!completions[i].isSuccess()) {
                    throw new IllegalStateException("benchmark completion failed: " + completions[i]);
                }
            }
            got += polled;
        }
        return got;
    }

    @Override
    public void close() {
        qpA.close();
        qpB.close();
        mrA.close();
        mrB.close();
        cqA.close();
        cqB.close();
        pdA.close();
        pdB.close();
        contextA.close();
        contextB.close();
        fabric.close();
        arena.close();
    }
}
