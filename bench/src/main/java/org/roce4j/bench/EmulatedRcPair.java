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
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.MacAddress;

/**
 * Two emulated RNICs on a deterministic fabric (the caller's thread drives everything through CQ
 * polls, as a single-threaded unit test would), with one RC queue pair connected between them.
 */
final class EmulatedRcPair implements AutoCloseable {
    static final Set<AccessFlag> ALL_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    final Fabric fabric;
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
        this(Fabric.deterministic(), memoryBytes, queueDepth, mtu, DEFAULT_ACK_TIMEOUT, false);
    }

    /** @param fabric {@code Fabric.deterministic()} or {@code Fabric.threaded()}; the pair closes it */
    EmulatedRcPair(Fabric fabric, long memoryBytes, int queueDepth, Mtu mtu) throws Exception {
        this(fabric, memoryBytes, queueDepth, mtu, DEFAULT_ACK_TIMEOUT, false);
    }

    /** The fabric a benchmark's {@code fabric} parameter names: "deterministic" or "threaded". */
    static Fabric fabric(String kind) {
        return switch (kind) {
            case "deterministic" -> Fabric.deterministic();
            case "threaded" -> Fabric.threaded();
            default -> throw new IllegalArgumentException("fabric: deterministic or threaded, not " + kind);
        };
    }

    private SoftRnic node(String name, String mac, String ipv4, boolean retryForever) throws Exception {
        return SoftRnic.builder(fabric).name(name).mac(MacAddress.parse(mac))
                .ipv4((Inet4Address) InetAddress.getByName(ipv4)).profile(retryForever ? DeviceProfile.RXE_6_12 : DeviceProfile.LINUX).attach();
    }

    /**
     * @param ackTimeout the QPs' local ACK timeout exponent: 4.096 µs × 2^ackTimeout
     * @param retryForever retry_cnt 7 retries forever, as Linux rxe does (IBTA: seven retries)
     */
    EmulatedRcPair(long memoryBytes, int queueDepth, Mtu mtu, int ackTimeout, boolean retryForever) throws Exception {
        this(Fabric.deterministic(), memoryBytes, queueDepth, mtu, ackTimeout, retryForever);
    }

    private EmulatedRcPair(Fabric fabric, long memoryBytes, int queueDepth, Mtu mtu, int ackTimeout,
                           boolean retryForever) throws Exception {
        this.fabric = fabric;
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
        QpBringUp bringUp = QpBringUp.pingpong().withPathMtu(mtu).withTimeout(ackTimeout).withRdAtomic(16, 16);
        bringUp.init(qpA);
        bringUp.init(qpB);
        bringUp.readyToReceive(qpA, new QpBringUp.Remote(qpB.qpNum(), 0, contextB.queryGid(1, 1)));
        bringUp.readyToSend(qpA, 0);
        bringUp.readyToReceive(qpB, new QpBringUp.Remote(qpA.qpNum(), 0, contextA.queryGid(1, 1)));
        bringUp.readyToSend(qpB, 0);
    }

    /** Polls {@code cq} until {@code n} successful completions arrived; fails loudly on an error one. */
    int await(Cq cq, int n) {
        int got = 0;
        while (got < n) {
            int polled = cq.poll(completions);
            for (int i = 0; i < polled; i++) {
                requireSuccess(completions[i]);
            }
            got += polled;
        }
        return got;
    }

    /** Fails the benchmark loudly on an error completion. */
    static void requireSuccess(WorkCompletion completion) {
        requireStatus(completion, WcStatus.SUCCESS);
    }

    /** Fails the benchmark loudly on a completion whose status is not {@code expected}. */
    static void requireStatus(WorkCompletion completion, WcStatus expected) {
        if (completion.status() != expected) {
            throw new IllegalStateException("benchmark completion not " + expected + ": " + completion);
        }
    }

    @Override
    public void close() {
        closeInOrder(qpA, qpB, mrA, mrB, cqA, cqB, pdA, pdB, contextA, contextB, fabric, arena);
    }

    /** Closes a pair's resources in the order given (QPs before their MRs, CQs, PDs and contexts). */
    static void closeInOrder(AutoCloseable... resources) {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing " + resource, e);
            }
        }
    }
}
