package org.roce4j.testkit;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.roce4j.cm.CmId;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Ah;
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

/**
 * Two queue pairs connected to each other in one line, with what each side needs: a PD, a CQ, a
 * registered buffer, and the peer's QPN, PSN, GID and rkey exchanged — the out-of-band handshake
 * that {@code ibv_rc_pingpong} does over TCP, done in memory for a test.
 *
 * <pre>{@code
 * QpPair pair = QpPair.rc(a, b);
 * pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.b().mr().address(), pair.b().mr().rkey()));
 * }</pre>
 *
 * <p>RC and UC QPs go RESET → INIT → RTR → RTS with the attributes of {@code ibv_rc_pingpong}
 * (timeout 14, retry_cnt 7, rnr_retry 7, min_rnr_timer 12) and first PSNs drawn from the test's
 * seed; UD QPs get Q_Key {@link #UD_QKEY} and an address handle to the peer. Inside a test with
 * {@link EmulatedFabric}, a pair the test does not close is closed after it (not a leak).
 *
 * <p>An RC pair can also be connected through rdma_cm ({@link #rcThroughCm},
 * {@link Builder#connectThroughCm}): a listener on one node, a client on the other, the QPs made by
 * the CM ({@code rdma_create_qp}) and moved to RTS by the REQ/REP/RTU exchange on the test's fabric.
 */
public final class QpPair implements AutoCloseable {
    /** The buffer each side registers unless told otherwise: 64 KiB. */
    public static final int DEFAULT_BUFFER_BYTES = 64 * 1024;
    /** The Q_Key of UD pairs: the one {@code ibv_ud_pingpong} uses. */
    public static final int UD_QKEY = 0x11111111;
    /** The kernel's page size, whose offset an IOVA keeps. */
    private static final long PAGE_SIZE = 4096;

    private final Side a;
    private final Side b;

    QpPair(Side a, Side b) {
        this.a = a;
        this.b = b;
    }

    /**
     * {@return an RC pair between two contexts, with the defaults}
     *
     * @param a one side's context
     * @param b the other side's
     */
    public static QpPair rc(Context a, Context b) {
        return builder(QpType.RC).connect(a, b);
    }

    /**
     * {@return a UC pair between two contexts, with the defaults}
     *
     * @param a one side's context
     * @param b the other side's
     */
    public static QpPair uc(Context a, Context b) {
        return builder(QpType.UC).connect(a, b);
    }

    /**
     * {@return a UD pair: each QP in RTS with an address handle to the other}
     *
     * @param a one side's context
     * @param b the other side's
     */
    public static QpPair ud(Context a, Context b) {
        return builder(QpType.UD).connect(a, b);
    }

    /**
     * {@return an RC pair connected through rdma_cm, with the defaults}: see {@link Builder#connectThroughCm}
     *
     * @param client the node that connects (side {@link #a()})
     * @param server the node that listens and accepts (side {@link #b()})
     */
    public static QpPair rcThroughCm(RdmaNode client, RdmaNode server) {
        return builder(QpType.RC).connectThroughCm(client, server);
    }

    /**
     * {@return a builder for a pair of another size or shape}
     *
     * @param type RC, UC or UD
     */
    public static Builder builder(QpType type) {
        return new Builder(type);
    }

    /** {@return the first side} */
    public Side a() {
        return a;
    }

    /** {@return the second side} */
    public Side b() {
        return b;
    }

    /** Destroys both sides' QPs, address handles, MRs, CQs and PDs, and frees the buffers. Twice: no-op. */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (Side side : new Side[] {b, a}) {
            try {
                side.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return a.qp.type() + " pair " + a + " ⇄ " + b;
    }

    /** How to make a pair. */
    public static final class Builder {
        private final QpType type;
        private Mtu mtu;
        private int bufferBytes = DEFAULT_BUFFER_BYTES;
        private QpCap cap = QpCap.of(64, 64);
        private int cqEntries = 256;
        private Set<AccessFlag> remoteAccess = EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC);
        private int timeout = 14;
        private int retryCnt = 7;
        private int rnrRetry = 7;
        private int maxRdAtomic = 16;
        private boolean sqSigAll;

        private Builder(QpType type) {
            this.type = Objects.requireNonNull(type, "type");
        }

        /**
         * {@return this builder}
         *
         * @param pathMtu the path MTU of RC and UC QPs (default: the test fabric's MTU, else the
         *     ports' active MTU)
         */
        public Builder mtu(Mtu pathMtu) {
            this.mtu = pathMtu;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param bytes the size of the buffer each side registers (local write and every remote right)
         */
        public Builder bufferBytes(int bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("buffer of " + bytes + " bytes");
            }
            this.bufferBytes = bytes;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param capacities the queue sizes each QP asks for (default 64 send and 64 receive WRs, one SGE)
         */
        public Builder cap(QpCap capacities) {
            this.cap = Objects.requireNonNull(capacities, "cap");
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param entries the size of each side's CQ (default 256)
         */
        public Builder cqEntries(int entries) {
            this.cqEntries = entries;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param rights what each QP's responder allows (default: remote write, read and atomic)
         */
        public Builder remoteAccess(Set<AccessFlag> rights) {
            this.remoteAccess = rights.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(rights);
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param exponent the RC local ACK timeout, 4.096 µs × 2^exponent (default 14: 67 ms)
         */
        public Builder timeout(int exponent) {
            this.timeout = exponent;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param count RC retries after timeouts and sequence NAKs (default 7)
         */
        public Builder retryCnt(int count) {
            this.retryCnt = count;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param count RC retries after RNR NAKs (default 7: forever)
         */
        public Builder rnrRetry(int count) {
            this.rnrRetry = count;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param outstanding RDMA READs and atomics in flight per QP, as requester and as responder (default 16)
         */
        public Builder maxRdAtomic(int outstanding) {
            this.maxRdAtomic = outstanding;
            return this;
        }

        /**
         * {@return this builder}
         *
         * @param signalAll every send WR completes, as if posted SIGNALED ({@code sq_sig_all})
         */
        public Builder sqSigAll(boolean signalAll) {
            this.sqSigAll = signalAll;
            return this;
        }

        /** The bring-up of this pair's QPs: ibv_rc_pingpong's, with this builder's settings. */
        private QpBringUp bringUp(Mtu pathMtu) {
            // The UC service has SEND and RDMA WRITE only: of the remote rights, REMOTE_WRITE alone carries over.
            Set<AccessFlag> access = type != QpType.UC ? remoteAccess
                    : remoteAccess.contains(AccessFlag.REMOTE_WRITE)
                            ? EnumSet.of(AccessFlag.REMOTE_WRITE) : EnumSet.noneOf(AccessFlag.class);
            return QpBringUp.pingpong().withPortNum(RdmaNode.PORT).withSgidIndex(RdmaNode.GID_INDEX)
                    .withQkey(UD_QKEY).withPathMtu(pathMtu).withRemoteAccess(access).withTimeout(timeout)
                    .withRetryCnt(retryCnt).withRnrRetry(rnrRetry).withRdAtomic(maxRdAtomic, maxRdAtomic);
        }

        /**
         * {@return two RC QPs connected through rdma_cm, once both sides are ESTABLISHED}: node
         * {@code server} listens on an ephemeral port of its address; node {@code client} resolves
         * it, creates its QP with {@code rdma_create_qp} and connects; the server accepts the
         * CONNECT_REQUEST with a QP of its own. The CM negotiates the path MTU (the smaller port's),
         * the ACK timeout (rdma_cm's 19) and the QP's access (remote write, read and atomic), so
         * this builder's {@code mtu}, {@code timeout} and {@code remoteAccess} do not apply; its
         * retry counts and {@code maxRdAtomic} (responder resources and initiator depth) travel in
         * the REQ and REP. Each side's {@link Side#cmId()} is its id; closing the pair destroys the
         * QPs, the ids (a connected id sends a DREQ) and the event channels. On the deterministic
         * fabric the CM's waits cost virtual time only; every step may take up to
         * 200 s.
         *
         * @param client the node that connects (side {@link QpPair#a()})
         * @param server the node that listens and accepts (side {@link QpPair#b()})
         * @throws IllegalArgumentException for UC and UD (rdma_cm's TCP port space connects RC QPs)
         * @throws IllegalStateException when an rdma_cm step ends in another event than expected
         *         (REJECTED, UNREACHABLE, …) or in none
         */
        public QpPair connectThroughCm(RdmaNode client, RdmaNode server) {
            if (type != QpType.RC) {
                throw new IllegalArgumentException("rdma_cm's TCP port space connects RC QPs, not " + type);
            }
            QpPair pair = CmBringUp.connect(this, client, server);
            TestFabric test = ActiveTests.current();
            if (test != null) {
                test.closeAfterTest(pair);
            }
            return pair;
        }

        /** {@return what this builder's connection parameters announce in an rdma_cm REQ or REP} */
        org.roce4j.cm.ConnParam connParam() {
            return org.roce4j.cm.ConnParam.defaults().withRetries(retryCnt, rnrRetry)
                    .withReadDepths(maxRdAtomic, maxRdAtomic);
        }

        /**
         * {@return the two QPs, connected}
         *
         * @param contextA the first side's context
         * @param contextB the second side's
         */
        public QpPair connect(Context contextA, Context contextB) {
            TestFabric test = ActiveTests.current();
            Mtu pathMtu = mtu != null ? mtu : test != null ? test.mtu()
                    : contextA.queryPort(RdmaNode.PORT).activeMtu();
            Side a = new Side(contextA, this);
            Side b;
            try {
                b = new Side(contextB, this);
            } catch (RuntimeException e) {
                a.close();
                throw e;
            }
            QpPair pair = new QpPair(a, b);
            try {
                int psnA = test != null ? test.nextPsn() : 0x000100;
                int psnB = test != null ? test.nextPsn() : 0xFFFFF0;
                a.connect(b, psnA, psnB, pathMtu);
                b.connect(a, psnB, psnA, pathMtu);
            } catch (RuntimeException e) {
                pair.close();
                throw e;
            }
            if (test != null) {
                test.closeAfterTest(pair);
            }
            return pair;
        }
    }

    /** One side of a pair: its context, PD, CQ, QP, registered buffer, and what it knows of the peer. */
    public static final class Side {
        private final Context context;
        private final Arena arena = Arena.ofShared();
        private final Deque<AutoCloseable> resources = new ArrayDeque<>();
        private final Builder settings;
        private final Pd pd;
        private final Cq cq;
        private final Qp qp;
        private final Mr mr;
        private final CmId cmId;
        private Ah ahToPeer;
        private Side peer;
        private boolean closed;

        private Side(Context context, Builder settings) {
            this(context, settings, null);
        }

        /**
         * @param cmId the rdma_cm id whose QP this side's is ({@code rdma_create_qp} on {@code context},
         *     the id's own), or null for a QP the PD makes
         */
        Side(Context context, Builder settings, CmId cmId) {
            this.context = Objects.requireNonNull(context, "context");
            this.settings = settings;
            this.cmId = cmId;
            try {
                pd = keep(context.allocPd());
                cq = keep(context.createCq(settings.cqEntries));
                QpInitAttr attr = QpInitAttr.of(settings.type, cq, settings.cap).withSqSigAll(settings.sqSigAll);
                if (cmId == null) {
                    qp = keep(pd.createQp(attr));
                } else {
                    qp = cmId.createQp(pd, attr);
                    resources.push(cmId::destroyQp); // rdma_destroy_qp: the id lets go of it too
                }
                // Page-aligned, so that a fixed IOVA keeps the address's page offset (0), as Linux's
                // ib_uverbs_reg_mr requires.
                MemorySegment buffer = arena.allocate(settings.bufferBytes, PAGE_SIZE);
                Set<AccessFlag> all = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                        AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
                // In a test, a fixed IOVA (ibv_reg_mr_iova) keeps addresses in frames, requests and
                // captures the same on every run, so that a seed replays byte for byte.
                TestFabric test = ActiveTests.current();
                mr = keep(test != null ? pd.regMr(buffer, test.nextIova(settings.bufferBytes), all) : pd.regMr(buffer, all));
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        private <T extends AutoCloseable> T keep(T resource) {
            resources.push(resource);
            return resource;
        }

        /** Closes these after everything else of this side, in this order (an id before its channel). */
        void closeLast(AutoCloseable... inOrder) {
            for (AutoCloseable resource : inOrder) {
                resources.addLast(resource);
            }
        }

        /** rdma_cm exchanged what ibv_rc_pingpong sends over TCP; the buffers' addresses are swapped in memory. */
        void connectedTo(Side other) {
            this.peer = other;
        }

        private Gid gid() {
            return context.queryGid(RdmaNode.PORT, RdmaNode.GID_INDEX);
        }

        /** RESET → INIT → RTR → RTS as ibv_rc_pingpong's pp_connect_ctx (UD: as ibv_ud_pingpong's). */
        private void connect(Side other, int myPsn, int peerPsn, Mtu pathMtu) {
            this.peer = other;
            QpBringUp bringUp = settings.bringUp(pathMtu);
            if (settings.type == QpType.UD) {
                bringUp.activate(qp, myPsn);
                ahToPeer = keep(pd.createAh(bringUp.path(other.gid())));
                return;
            }
            bringUp.connect(qp, myPsn, new QpBringUp.Remote(other.qp.qpNum(), peerPsn, other.gid()));
        }

        /** {@return the rdma_cm id this side's QP belongs to, when the pair was connected through rdma_cm} */
        public Optional<CmId> cmId() {
            return Optional.ofNullable(cmId);
        }

        /** {@return the context this side lives on} */
        public Context context() {
            return context;
        }

        /** {@return this side's protection domain} */
        public Pd pd() {
            return pd;
        }

        /** {@return the CQ of both the send and the receive queue} */
        public Cq cq() {
            return cq;
        }

        /** {@return the queue pair} */
        public Qp qp() {
            return qp;
        }

        /** {@return the registered buffer (local write and every remote right)} */
        public Mr mr() {
            return mr;
        }

        /** {@return the registered buffer's memory} */
        public MemorySegment buffer() {
            return mr.segment();
        }

        /** {@return UD: the address handle that reaches the peer (null for RC and UC)} */
        public Ah ahToPeer() {
            return ahToPeer;
        }

        /** {@return the peer's QP number, as exchanged} */
        public int peerQpNum() {
            return peer.qp.qpNum();
        }

        /** {@return the peer buffer's address, as an RDMA READ or WRITE names it} */
        public long peerAddress() {
            return peer.mr.address();
        }

        /** {@return the peer buffer's rkey} */
        public int peerRkey() {
            return peer.mr.rkey();
        }

        /** Destroys this side's objects newest first and frees its buffer. Twice: no-op. */
        void close() {
            if (closed) {
                return;
            }
            closed = true;
            RuntimeException failure = null;
            while (!resources.isEmpty()) {
                try {
                    resources.pop().close();
                } catch (Exception e) {
                    RuntimeException wrapped = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                    if (failure == null) {
                        failure = wrapped;
                    } else {
                        failure.addSuppressed(wrapped);
                    }
                }
            }
            arena.close();
            if (failure != null) {
                throw failure;
            }
        }

        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%s QP 0x%06x", context.device().name(), qp.qpNum());
        }
    }
}
