package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * Issue 13, "every posted WR ends in exactly one completion, always": random RC workloads (SEND,
 * INLINE SEND, WRITE, READ, FETCH_ADD, CMP_SWAP) from A to B, with arenas closed and regions
 * deregistered under them at random points — on both sides, before or while the RNIC uses them.
 * Whatever happens, every send WR that was accepted completes exactly once (by wr_id, before anything
 * forces the QP to ERR), a post is refused only with EINVAL (INLINE data whose memory is gone),
 * nothing throws out of the RNIC's loop, every SEND that completed SUCCESS put its receive through
 * SUCCESS, and after B is moved to ERR every receive has completed exactly once.
 *
 * <p>"Random points": on the deterministic fabric each action is followed by 0..29 fabric steps, so
 * a close lands before, between or after the packets of the WRs before it; on the threaded fabric
 * the event loop runs on its own and each action is followed by a random pause of 0..300 µs.
 * Examples: {@code -Droce4j.close.examples} (default 300 deterministic; a tenth of it, at least 20,
 * threaded). Replays: {@code -DQT_SEED=N}.
 */
class RandomCloseProperties {
    static final int EXAMPLES = Integer.getInteger("roce4j.close.examples", 300);
    static final int MAX_ACTIONS = 16;
    /** Regions per side whose arena or registration may go away; index 0 is the side's stable region. */
    static final int VOLATILE = 3;
    static final int VOLATILE_SIZE = 8192;
    static final int MAX_LENGTH = 3000;
    static final int RECEIVE_ID = 1_000_000;
    static final List<WrOpcode> OPCODES = List.of(WrOpcode.SEND, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ,
            WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_CMP_AND_SWP);

    enum Kind { POST, CLOSE_ARENA, DEREGISTER }

    /** One step of a workload, decoded from 8 numbers so that QuickTheories shrinks it towards "SEND 0 bytes". */
    record Action(Kind kind, WrOpcode opcode, int local, int remote, int length, boolean inline, int pause,
                  boolean onB) {
        static Action of(int[] g) {
            int k = g[0] % 10;
            Kind kind = k < 6 ? Kind.POST : k < 8 ? Kind.CLOSE_ARENA : Kind.DEREGISTER;
            WrOpcode opcode = OPCODES.get(g[1] % OPCODES.size());
            boolean inline = g[5] % 4 == 3 && (opcode == WrOpcode.SEND || opcode == WrOpcode.RDMA_WRITE);
            int length = opcode.isAtomic() ? 8 : g[4] % (inline ? 65 : MAX_LENGTH + 1); // TwoNodes: 64 B inline
            return new Action(kind, opcode, g[2] % (VOLATILE + 1), g[3] % (VOLATILE + 1), length, inline,
                    g[6] % 30, g[7] % 2 == 1);
        }

        @Override
        public String toString() {
            return switch (kind) {
                case POST -> opcode + (inline ? " INLINE " : " ") + length + " B, local region " + local
                        + ", remote region " + remote;
                case CLOSE_ARENA, DEREGISTER -> kind + " of " + (onB ? "B" : "A") + "'s region " + (1 + local % VOLATILE);
            } + ", then " + pause;
        }
    }

    static Gen<List<Action>> workloads() {
        return lists().of(Generate.intArrays(Generate.constant(8), integers().between(0, 1 << 16))
                .map(Action::of)).ofSizeBetween(1, MAX_ACTIONS);
    }

    @Test
    @DisplayName("issue 13: arenas closed and regions deregistered at random points of random RC workloads "
            + "(deterministic fabric): every posted WR completes exactly once, nothing escapes the RNIC")
    void deterministicFabric() {
        run(false, EXAMPLES);
    }

    @Test
    @Timeout(600)
    @DisplayName("issue 13: the same on the threaded fabric, the event loop touching memory while the test closes it")
    void threadedFabric() {
        run(true, Math.max(20, EXAMPLES / 10));
    }

    private final Tally tally = new Tally();

    private void run(boolean threaded, int examples) {
        long seed = Long.getLong("QT_SEED", System.nanoTime());
        qt().withExamples(examples).withShrinkCycles(50).withFixedSeed(seed).forAll(workloads())
                .checkAssert(workload -> check(workload, threaded, seed));
        System.out.printf("RandomCloseProperties (%s fabric, QuickTheories seed %d): %d examples run, %d send WRs "
                        + "posted, %d refused at post (EINVAL), %d left without a completion, %d completed more than "
                        + "once, %d exceptions escaped; %d arenas closed, %d regions deregistered; send statuses %s; "
                        + "memory_access_errors A %d, B %d%n", threaded ? "threaded" : "deterministic", seed,
                tally.examples, tally.posted, tally.refused, tally.missing, tally.duplicated, tally.escaped,
                tally.arenasClosed, tally.deregistered, tally.statuses, tally.memoryErrorsA, tally.memoryErrorsB);
        assertThat(tally.missing + tally.duplicated + tally.escaped).isZero();
        // The property must have met what it is about: memory failing under the RNIC on both sides. On
        // the deterministic fabric 300 examples meet ~40 of each; the threaded event loop usually runs a
        // WR before the close that follows it lands (a handful per 30 examples), too few to demand.
        if (!threaded) {
            assertThat(tally.memoryErrorsA).as("requester-side memory failures over all examples").isPositive();
            assertThat(tally.memoryErrorsB).as("responder-side memory failures over all examples").isPositive();
        }
    }

    static final class Tally {
        int examples;
        long posted;
        long refused;
        long missing;
        long duplicated;
        long escaped;
        long arenasClosed;
        long deregistered;
        long memoryErrorsA;
        long memoryErrorsB;
        final Map<WcStatus, Long> statuses = new EnumMap<>(WcStatus.class);
    }

    /** A side's regions: index 0 the stable one of {@link TwoNodes}, 1..VOLATILE each in an arena of its own. */
    private static final class Regions {
        final Mr[] mrs = new Mr[VOLATILE + 1];
        final Arena[] arenas = new Arena[VOLATILE + 1];
        final boolean[] closed = new boolean[VOLATILE + 1];

        Regions(TwoNodes.Side side) {
            mrs[0] = side.mr;
            for (int i = 1; i <= VOLATILE; i++) {
                arenas[i] = Arena.ofShared();
                MemorySegment memory = arenas[i].allocate(VOLATILE_SIZE, 4096);
                mrs[i] = side.pd.regMr(memory, TwoNodes.ALL_ACCESS);
            }
        }

        void closeArena(int i) {
            if (!closed[i]) {
                closed[i] = true;
                arenas[i].close();
            }
        }

        void closeAll() {
            for (int i = 1; i <= VOLATILE; i++) {
                closeArena(i);
            }
        }
    }

    private void check(List<Action> workload, boolean threaded, long seed) {
        List<Throwable> escaped = Collections.synchronizedList(new ArrayList<>());
        Fabric fabric = threaded ? Fabric.threaded() : Fabric.deterministic();
        fabric.onCallbackFailure((where, failure) -> escaped.add(failure));
        TwoNodes nodes = new TwoNodes(fabric);
        Regions onA = new Regions(nodes.a);
        Regions onB = new Regions(nodes.b);
        try {
            Qp qa = nodes.a.createQp(QpType.RC, 64);
            Qp qb = nodes.b.createQp(QpType.RC, 64);
            // A short ACK timeout (4.096 µs × 2^10 ≈ 4.2 ms) and few retries: when B's QP is in ERR and
            // drops A's packets, A's WRs end in RETRY_EXC_ERR quickly, on virtual or real time.
            TwoNodes.connect(qa, qb.qpNum(), nodes.b.gid(), 100, 200, Mtu.MTU_1024, rtr -> { },
                    rts -> rts.timeout(10).retryCnt(3).rnrRetry(3));
            TwoNodes.connect(qb, qa.qpNum(), nodes.a.gid(), 200, 100, Mtu.MTU_1024, rtr -> { },
                    rts -> rts.timeout(10).retryCnt(3).rnrRetry(3));
            List<Long> posted = new ArrayList<>();
            List<Long> receives = new ArrayList<>();
            Map<Long, Long> receiveOfSend = new HashMap<>();
            long wrId = 0;
            for (Action action : workload) {
                switch (action.kind()) {
                    case POST -> {
                        wrId++;
                        SendWr wr = sendWr(action, wrId, onA, onB, wrId);
                        try {
                            qa.postSend(wr);
                            posted.add(wrId);
                            if (action.opcode() == WrOpcode.SEND) {
                                // Right after its SEND, so that the k-th SEND accepted takes the k-th receive
                                // (the deterministic fabric runs nothing in between; the threaded one may
                                // meet RNR first, and retries).
                                long receiveId = RECEIVE_ID + wrId;
                                qb.postRecv(RecvWr.of(receiveId, onB.mrs[action.remote()], 0, MAX_LENGTH));
                                receives.add(receiveId);
                                receiveOfSend.put(wrId, receiveId);
                            }
                        } catch (BadWorkRequestException refused) {
                            // Only INLINE data whose memory is gone may be refused, and only with EINVAL.
                            assertThat(action.inline()).as("a non-INLINE post refused: " + refused).isTrue();
                            assertThat(refused.errno()).isEqualTo(Errno.EINVAL);
                            tally.refused++;
                        }
                    }
                    case CLOSE_ARENA -> {
                        (action.onB() ? onB : onA).closeArena(1 + action.local() % VOLATILE);
                        tally.arenasClosed++;
                    }
                    case DEREGISTER -> {
                        (action.onB() ? onB : onA).mrs[1 + action.local() % VOLATILE].close();
                        tally.deregistered++;
                    }
                }
                pause(fabric, threaded, action.pause());
            }
            // Every accepted send WR completes exactly once, with nothing forcing it: the QP as the RNIC left it.
            Map<Long, WcStatus> sendStatus = new HashMap<>();
            List<Long> sendIds = collect(nodes.a, posted.size(), threaded, sendStatus);
            // The SENDs that succeeded put their receive through: RC says the responder completed it first.
            Map<Long, WcStatus> receiveStatus = new HashMap<>();
            List<Long> receiveIds = collect(nodes.b, 0, threaded, receiveStatus);
            long successfulSends = receiveOfSend.keySet().stream()
                    .filter(id -> sendStatus.get(id) == WcStatus.SUCCESS).count();
            assertThat(receiveStatus.values().stream().filter(s -> s == WcStatus.SUCCESS).count())
                    // at least: a SEND B executed can still be flushed at A when an earlier WR fails there
                    .as("receives completed SUCCESS vs SENDs that completed SUCCESS").isGreaterThanOrEqualTo(successfulSends);
            if (!threaded) { // one to one, by wr_id (on the threaded fabric an RNR give-up could shift the pairing)
                for (Map.Entry<Long, Long> send : receiveOfSend.entrySet()) {
                    if (sendStatus.get(send.getKey()) == WcStatus.SUCCESS) {
                        assertThat(receiveStatus.get(send.getValue())).as("receive of successful SEND " + send.getKey())
                                .isEqualTo(WcStatus.SUCCESS);
                    }
                }
            }
            // Then B's receives that no SEND reached are flushed: each receive completed exactly once.
            qb.modify(new QpAttr().qpState(QpState.ERR));
            receiveIds.addAll(collect(nodes.b, receives.size() - receiveIds.size(), threaded, receiveStatus));
            long missing = posted.stream().filter(id -> !sendIds.contains(id)).count()
                    + receives.stream().filter(id -> !receiveIds.contains(id)).count();
            long duplicated = (sendIds.size() - sendIds.stream().distinct().count())
                    + (receiveIds.size() - receiveIds.stream().distinct().count());
            tally.examples++;
            tally.posted += posted.size();
            tally.missing += missing;
            tally.duplicated += duplicated;
            tally.escaped += escaped.size();
            tally.memoryErrorsA += nodes.rnicA.counter(RnicCounter.MEMORY_ACCESS_ERRORS);
            tally.memoryErrorsB += nodes.rnicB.counter(RnicCounter.MEMORY_ACCESS_ERRORS);
            sendStatus.values().forEach(s -> tally.statuses.merge(s, 1L, Long::sum));
            String context = (threaded ? "threaded" : "deterministic") + " fabric, QT_SEED=" + seed;
            assertThat(escaped).as("exceptions out of the RNIC's loop; " + context).isEmpty();
            assertThat(missing).as("WRs without a completion (sends %s, receives %s); %s", sendIds, receiveIds, context)
                    .isZero();
            assertThat(duplicated).as("WRs completed twice; " + context).isZero();
            assertThat(sendIds).as("only posted WRs complete").allMatch(posted::contains);
        } finally {
            nodes.close();
            onA.closeAll();
            onB.closeAll();
        }
    }

    private static SendWr sendWr(Action action, long wrId, Regions onA, Regions onB, long salt) {
        Mr local = onA.mrs[action.local()];
        Mr remote = onB.mrs[action.remote()];
        // Stable regions are 1 MiB: spread the accesses; volatile ones are small: start at 0.
        long localOffset = action.local() == 0 ? (salt * 8192) % (512 * 1024) : 0;
        long remoteAddress = remote.address() + (action.remote() == 0 ? (salt * 8192) % (512 * 1024) : 0);
        SendWr wr = switch (action.opcode()) {
            case SEND -> SendWr.send(wrId, local, localOffset, action.length());
            case RDMA_WRITE -> SendWr.rdmaWrite(wrId, local, localOffset, action.length(), remoteAddress, remote.rkey());
            case RDMA_READ -> SendWr.rdmaRead(wrId, local, localOffset, action.length(), remoteAddress, remote.rkey());
            case ATOMIC_FETCH_AND_ADD -> SendWr.fetchAndAdd(wrId, local, localOffset, remoteAddress, remote.rkey(), 1);
            default -> SendWr.compareAndSwap(wrId, local, localOffset, remoteAddress, remote.rkey(), 0, 1);
        };
        return wr.signaled(true).inline(action.inline());
    }

    private static void pause(Fabric fabric, boolean threaded, int amount) {
        if (threaded) {
            LockSupport.parkNanos(amount * 10_000L);
        } else {
            for (int i = 0; i < amount && fabric.step(); i++) {
                // one frame delivered or one agent turn per step
            }
        }
    }

    /**
     * The completions on a side's CQ: on the deterministic fabric everything the RNIC will ever do
     * (polling runs it until idle, virtual timers included); on the threaded one until {@code expected}
     * have come, then 100 ms more for any that should not come, or 10 s at most.
     */
    private static List<Long> collect(TwoNodes.Side side, int expected, boolean threaded, Map<Long, WcStatus> status) {
        List<Long> ids = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        long quietUntil = Long.MAX_VALUE;
        while (true) {
            List<WorkCompletion> some = side.pollAll();
            for (WorkCompletion wc : some) {
                ids.add(wc.wrId());
                status.put(wc.wrId(), wc.status());
            }
            if (!threaded) {
                return ids;
            }
            long now = System.nanoTime();
            if (ids.size() >= expected && quietUntil == Long.MAX_VALUE) {
                quietUntil = now + Duration.ofMillis(100).toNanos();
            }
            if (now >= quietUntil || now >= deadline) {
                return ids;
            }
            LockSupport.parkNanos(200_000);
        }
    }
}
