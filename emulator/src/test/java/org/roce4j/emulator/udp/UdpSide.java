package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.function.Consumer;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.TwoNodes;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
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

/** One UDP device with a context, PD, CQ and a 4 MiB registered region, for the tests of this package. */
final class UdpSide implements AutoCloseable {
    static final EnumSet<AccessFlag> ALL_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    static final int MEMORY = 4 << 20;

    final UdpRnic rnic;
    final Arena arena = Arena.ofShared();
    final Context context;
    final Pd pd;
    final Cq cq;
    final MemorySegment memory;
    final Mr mr;

    UdpSide(String name, String spec, UdpLinkConfig config) throws IOException {
        this(name, spec, config, MEMORY);
    }

    /** As above, with a registered region of {@code memoryBytes}. */
    UdpSide(String name, String spec, UdpLinkConfig config, long memoryBytes) throws IOException {
        this(UdpRnic.open(name, spec, config), memoryBytes);
    }

    /** A device that models {@code model}. */
    UdpSide(String name, String spec, DeviceModel model) throws IOException {
        this(UdpRnic.open(name, spec, UdpLinkConfig.DEFAULT, model), MEMORY);
    }

    private UdpSide(UdpRnic rnic, long memoryBytes) {
        this.rnic = rnic;
        context = rnic.device().open();
        pd = context.allocPd();
        cq = context.createCq(1024);
        memory = arena.allocate(memoryBytes, 4096);
        mr = pd.regMr(memory, ALL_ACCESS);
    }

    Qp createQp(QpType type, int depth) {
        return pd.createQp(QpInitAttr.of(type, cq, new QpCap(depth, depth, 4, 4, 64)));
    }

    /** The GID other devices send to: the first one with a socket (GID 1 on 127.0.0.x and on ::1). */
    static final int GID_INDEX = 1;

    Gid gid() {
        return context.queryGid(1, GID_INDEX);
    }

    /** Polls until one completion arrives, at most 20 s. */
    WorkCompletion pollOne() {
        return pollOne(20);
    }

    /** Polls until one completion arrives, at most {@code seconds}. */
    WorkCompletion pollOne(int seconds) {
        WorkCompletion[] one = new WorkCompletion[1];
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (cq.poll(one) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within " + seconds + " s on " + rnic + "; counters " + rnic.rnic().counters()
                        + " link " + rnic.linkCounters());
            }
            Thread.onSpinWait();
        }
        return one[0];
    }

    /**
     * True when no completion is waiting on the CQ. It does not wait for one: a wall-clock wait proves
     * nothing on a real-time link (a late completion passes it). The caller proves first that the RNIC
     * has processed the frames in question, with the counter their handling advances (a drop counter,
     * {@code icrcInvalid}) or a completion the RNIC produced after them: a frame counted as dropped has
     * been handled and can never complete later, so one poll then answers the question.
     */
    boolean pollNone() {
        return cq.poll(1).isEmpty();
    }

    /** Brings a QP to RTS against a peer, as ibv_rc_pingpong does (timeout 14 ≈ 67 ms, retry_cnt 7). */
    static void connect(Qp qp, int remoteQpn, Gid remoteGid, int localPsn, int remotePsn, Mtu mtu, Consumer<QpAttr> rts) {
        TwoNodes.connect(qp, remoteQpn, remoteGid, localPsn, remotePsn, mtu, rtr -> { }, rts);
    }

    static Qp[] pair(UdpSide a, UdpSide b, QpType type, Mtu mtu) {
        return pair(a, b, type, mtu, rts -> { });
    }

    /** As {@link #pair(UdpSide, UdpSide, QpType, Mtu)}, with changes to both sides' RTS attributes. */
    static Qp[] pair(UdpSide a, UdpSide b, QpType type, Mtu mtu, Consumer<QpAttr> rts) {
        Qp qa = a.createQp(type, 256);
        Qp qb = b.createQp(type, 256);
        UdpSide.connect(qa, qb.qpNum(), b.gid(), 100, 200, mtu, rts);
        UdpSide.connect(qb, qa.qpNum(), a.gid(), 200, 100, mtu, rts);
        return new Qp[] {qa, qb};
    }

    static void assertSameBytes(MemorySegment x, long xOffset, MemorySegment y, long yOffset, int length) {
        assertThat(MemorySegment.mismatch(x, xOffset, xOffset + length, y, yOffset, yOffset + length))
                .as("first differing byte").isEqualTo(-1L);
    }

    static void fill(MemorySegment memory, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            memory.set(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i, (byte) (i * 31 + seed + (i >>> 8)));
        }
    }

    /** Closes the sides that were opened (a {@code @BeforeAll} may have failed before opening all). */
    static void closeAll(UdpSide... sides) {
        for (UdpSide side : sides) {
            if (side != null) {
                side.close();
            }
        }
    }

    @Override
    public void close() {
        try {
            rnic.close(); // the device's resources go with it
        } finally {
            arena.close();
        }
    }
}
