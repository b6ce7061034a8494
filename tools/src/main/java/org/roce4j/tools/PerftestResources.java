package org.roce4j.tools;

import static org.roce4j.tools.VerbsSteps.act;
import static org.roce4j.tools.VerbsSteps.step;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.random.RandomGenerator;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * The verbs resources of one perftest run, laid out as perftest's {@code ctx_init} and
 * {@code set_up_connection} lay them out: one buffer of {@code 2 * slot * qps} bytes (slot =
 * the largest message, at least the 4096-byte cycle buffer), QP i sending from slot i of the first
 * half and offering slot i of the second half to the peer (its record's vaddr); a send CQ and a
 * receive CQ; RC QPs with perftest's attributes (min_rnr_timer 12, timeout 14, retry_cnt 7,
 * rnr_retry 7; max_dest_rd_atomic our out_reads, max_rd_atomic the peer's).
 */
final class PerftestResources {
    static final int CYCLE_BUFFER = 4096;

    final Qp[] qps;
    final Cq sendCq;
    final Cq recvCq;
    final Mr mr;
    final MemorySegment buffer;
    final long slot;
    private final WorkCompletion[] completions = new WorkCompletion[64];
    private final boolean client;

    private PerftestResources(Qp[] qps, Cq sendCq, Cq recvCq, Mr mr, MemorySegment buffer, long slot, boolean client) {
        this.qps = qps;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.mr = mr;
        this.buffer = buffer;
        this.slot = slot;
        this.client = client;
    }

    /** How the run's QPs come to be: on the PD and moved to INIT here, or by rdma_cm ({@code -R}). */
    @FunctionalInterface
    interface QpMaker {
        Qp make(int index, Pd pd, QpInitAttr attr) throws PingpongFailure;
    }

    /** Creates everything and moves the QPs to INIT; every resource is registered with {@code steps}. */
    static PerftestResources create(Context context, Arena arena, VerbsSteps steps, Perftest.Options options,
                                    int sendDepth, int recvDepth) throws PingpongFailure {
        return create(context, arena, steps, options, sendDepth, recvDepth, (i, pd, attr) -> {
            Qp qp = steps.open("Couldn't create QP", () -> pd.createQp(attr));
            act("Failed to modify QP " + i + " to INIT", () -> bringUp(options).init(qp));
            return qp;
        });
    }

    /** {@link #create}, the QPs made by {@code qps} (already in INIT). */
    static PerftestResources create(Context context, Arena arena, VerbsSteps steps, Perftest.Options options,
                                    int sendDepth, int recvDepth, QpMaker qpMaker) throws PingpongFailure {
        int count = options.qps();
        long largest = Math.max(options.maxSize(), 1);
        long slot = Math.max(largest, CYCLE_BUFFER);
        slot = (slot + CYCLE_BUFFER - 1) / CYCLE_BUFFER * CYCLE_BUFFER;
        MemorySegment buffer = arena.allocate(2 * slot * count, CYCLE_BUFFER);
        Pd pd = steps.open("Couldn't allocate PD", context::allocPd);
        Mr mr = steps.open("Couldn't allocate MR", () -> pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE,
                AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC)));
        Cq sendCq = steps.open("Couldn't create CQ", () -> context.createCq(Math.max(1, sendDepth * count)));
        Cq recvCq = steps.open("Couldn't create CQ", () -> context.createCq(Math.max(1, recvDepth * count)));
        Qp[] qps = new Qp[count];
        for (int i = 0; i < count; i++) {
            qps[i] = qpMaker.make(i, pd, new QpInitAttr(QpType.RC, sendCq, recvCq, null,
                    new QpCap(sendDepth, Math.max(1, recvDepth), 1, 1, 0), false));
        }
        return new PerftestResources(qps, sendCq, recvCq, mr, buffer, slot, options.host() != null);
    }

    /** Offset in the buffer that QP {@code i} sends from (and READs/atomics land in). */
    long localOffset(int i) {
        return i * slot;
    }

    /** Offset in the buffer that QP {@code i} offers to the peer (its record's vaddr). */
    long remoteOffset(int i) {
        return (qps.length + i) * slot;
    }

    /** The records of our QPs: random 24-bit PSNs, our out_reads, the slot the peer may use. */
    PerftestAddress[] addresses(Context context, Perftest.Options options, int outReads, RandomGenerator random)
            throws PingpongFailure {
        Gid gid = step("Couldn't read sgid of index " + options.gidIndex(),
                () -> context.queryGid(options.ibPort(), options.gidIndex()));
        boolean remoteAccess = options.test().verb() != Perftest.Verb.SEND;
        PerftestAddress[] mine = new PerftestAddress[qps.length];
        for (int i = 0; i < qps.length; i++) {
            mine[i] = new PerftestAddress(0, outReads, qps[i].qpNum(), random.nextInt() & 0xFFFFFF,
                    remoteAccess ? mr.rkey() : 0, mr.address() + remoteOffset(i), gid, 0);
        }
        return mine;
    }

    /** ctx_connect: each QP to RTR and RTS towards its peer. */
    void connect(PerftestAddress[] mine, PerftestAddress[] remote, Mtu mtu, Perftest.Options options, int maxInitRdAtomic)
            throws PingpongFailure {
        for (int i = 0; i < qps.length; i++) {
            Qp qp = qps[i];
            PerftestAddress me = mine[i];
            PerftestAddress peer = remote[i];
            int initiatorDepth = Math.max(1, Math.min(peer.outReads(), maxInitRdAtomic));
            QpBringUp bringUp = bringUp(options).withPathMtu(mtu).withRdAtomic(initiatorDepth, Math.max(1, me.outReads()));
            act("Failed to modify QP " + qp.qpNum() + " to RTR",
                    () -> bringUp.readyToReceive(qp, new QpBringUp.Remote(peer.qpn(), peer.psn(), peer.gid())));
            act("Failed to modify QP to RTS", () -> bringUp.readyToSend(qp, me.psn()));
        }
    }

    /**
     * perftest's QP attributes (ctx_modify_qp_to_init / _to_rtr / _to_rts): every remote right, hop limit 0xFF,
     * the local ACK timeout of {@code -u} (14 unless given).
     */
    private static QpBringUp bringUp(Perftest.Options options) {
        return QpBringUp.pingpong().withPortNum(options.ibPort()).withSgidIndex(options.gidIndex()).withHopLimit(0xFF)
                .withTimeout(options.qpTimeout());
    }

    /** Posts one receive of {@code size} bytes on QP {@code i}, into its peer-visible slot. */
    void postRecv(int i, int size) throws PingpongFailure {
        Qp qp = qps[i];
        act("Couldn't post recv Qp = " + i, () -> qp.postRecv(RecvWr.of(i, mr, remoteOffset(i), size)));
    }

    /** Polls a CQ once; every completion must be a success; returns how many, their QP indexes in {@code qpOf}. */
    int poll(Cq cq, int[] qpOf) throws PingpongFailure {
        int n = cq.poll(completions);
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = completions[i];
            if (wc.status() != WcStatus.SUCCESS) {
                throw new PingpongFailure(String.format(" Completion with error at %s:%n Failed status %d: wr_id %d "
                        + "syndrom 0x0", client ? "client" : "server", wc.status().value(), (int) wc.wrId()));
            }
            if (qpOf != null && i < qpOf.length) {
                qpOf[i] = (int) wc.wrId();
            }
        }
        return n;
    }

    int batch() {
        return completions.length;
    }
}
