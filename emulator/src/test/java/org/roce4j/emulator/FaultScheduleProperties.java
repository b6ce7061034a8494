package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.roce4j.emulator.fabric.FaultCounters;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.PortCounters;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.wire.MacAddress;

/**
 * RC delivers every message exactly once, in order and bit-exact, and applies every atomic once,
 * whatever the network does short of losing a packet for good (IBTA 9.7.5 reliable service: PSN
 * sequence NAK and go-back-N 9.7.5.2.1, duplicate detection 9.7.5.1.1, READ/atomic replay
 * 9.7.5.1.4-5, local ACK timeout 9.7.6.1.3): a random RC workload — every RC opcode, lengths 0 to a
 * few path MTUs, path MTU 256..4096, a receive posted for every SEND and WRITE with immediate — run
 * under a random fault schedule leaves both memories and every completion (each CQ, in order,
 * every field) identical to the fault-free run of the same workload on a fresh fabric.
 *
 * <p>The schedule is data (per direction: drop, duplicate, reorder, corrupt and delay probabilities
 * in percent, reorder window, delay, and the injector seed), so QuickTheories shrinks it towards
 * "no fault" and the failure shows the least that still breaks RC. The message of a failure
 * carries {@link Faults#describe()} and the QuickTheories seed: rerun with {@code -DQT_SEED=N}.
 *
 * <h2>Why retry_cnt 7 does not run out (the generator's side of the contract)</h2>
 * retry_cnt 7 is 7 retries (IBTA 9.7.6.1.3; the emulator does not make it infinite as rxe does),
 * and the counter is reloaded by every ACK that makes progress, so a WQE fails RETRY_EXC_ERR only
 * after 8 go-backs in a row with no ACK between them. A go-back fails when the oldest unacknowledged
 * packet or every response to it is lost; with per-direction loss {@code La}, {@code Lb} that is
 * {@code f <= 1 - (1 - La)(1 - Lb)}, and one loss becomes an exhaustion with probability about
 * {@code f^7}. Loss per direction is {@code L = 1 - (1-drop)(1-corrupt)(1-late)}: drop and corrupt
 * are drawn from 0..4%, a delay past the ACK timeout ("late", a loss as far as retries go) from
 * 0..2% (so L ≤ 0.098, f ≤ 0.186, f^7 ≤ 7.7e-6). With up to ~30 packets each way, averaging over
 * the uniform draws, the expected number of exhaustions in 500 examples is about 5e-4 (0.009 with
 * 5% per kind, and with 30% per kind exhaustion shows up within a few examples: try
 * {@code -Droce4j.faults.maxLossPercent=30}). Duplicates, reordering (1..20 µs) and short delays
 * (1..40 µs, inside the 65.5 µs ACK timeout) lose nothing and are drawn from 0..30%. An example
 * that ends in RETRY_EXC_ERR is reported as a failure like any other: the message shows
 * retry_exceeded_err and the fault counters, so it can be told from an RNIC bug.
 *
 * <p>Examples: {@code -Droce4j.faults.examples} (default 500); shrink cycles:
 * {@code -Droce4j.faults.shrinks} (default 200).
 */
class FaultScheduleProperties {
    static final int EXAMPLES = Integer.getInteger("roce4j.faults.examples", 500);
    static final int SHRINK_CYCLES = Integer.getInteger("roce4j.faults.shrinks", 200);
    static final int MAX_OPS = 12;
    static final int MAX_LOSS_PERCENT = Integer.getInteger("roce4j.faults.maxLossPercent", 4);
    static final int MAX_LATE_PERCENT = Integer.getInteger("roce4j.faults.maxLatePercent", 2);
    static final int MAX_HARMLESS_PERCENT = 30;
    /** 4.096 µs × 2^4 = 65.5 µs of virtual time: loss recovers quickly. */
    static final int ACK_TIMEOUT = 4;

    static final MacAddress MAC_A = MacAddress.parse("02:00:00:00:00:01");
    static final MacAddress MAC_B = MacAddress.parse("02:00:00:00:00:02");

    // Memory layout (TwoNodes: 1 MiB per side). A reads its sources from SOURCE, each READ / atomic
    // of op i lands in its own slice at RESULTS + i * SLICE. B takes WRITEs anywhere in TARGET
    // (overlaps allowed: RC executes them in order, and a duplicate executed twice would show),
    // receive i at RECEIVES + i * SLICE, READs from READ_ONLY (nothing writes it, so a retried READ
    // re-reading memory reads what the first try read — IBTA lets a duplicate READ see newer data),
    // and atomics on four words at ATOMICS (chains of FETCH_ADD / CMP_SWP on one word: an atomic
    // applied twice would show).
    static final int SLICE = 16 * 1024;
    static final int SOURCE = 0;
    static final int SOURCE_SIZE = 64 * 1024;
    static final int RESULTS = 128 * 1024;
    static final int TARGET = 0;
    static final int TARGET_SIZE = 32 * 1024;
    static final int RECEIVES = 64 * 1024;
    static final int READ_ONLY = 512 * 1024;
    static final int READ_ONLY_SIZE = 64 * 1024;
    static final int ATOMICS = 768 * 1024;
    static final int ATOMIC_WORDS = 4;

    static final List<WrOpcode> RC_OPCODES = List.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
            WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_FETCH_AND_ADD,
            WrOpcode.ATOMIC_CMP_AND_SWP);

    @Test
    @DisplayName("IBTA 9.7.5 / 9.7.6.1.3: random RC workloads under random drop/duplicate/reorder/corrupt/delay "
            + "schedules end with the memories and completions of the fault-free run (exactly once, in order, bit-exact)")
    void faultsChangeNothingRcDelivers() {
        long qtSeed = Long.getLong("QT_SEED", System.nanoTime());
        qt().withExamples(EXAMPLES).withShrinkCycles(SHRINK_CYCLES).withFixedSeed(qtSeed)
                .forAll(workloads(), schedules())
                .checkAssert((workload, schedule) -> tally(check(workload, schedule, qtSeed)));
        // What the schedules did, so a run shows it tested something (and how much recovery it took).
        System.out.printf("FaultScheduleProperties: %d schedules (QuickTheories seed %d): %d frames dropped, "
                        + "%d duplicated, %d corrupted, %d delayed, %d reordered; A retransmitted %d packets, "
                        + "%d ACK timeouts, %d go-backs%n", examplesRun, qtSeed, totals[0], totals[1], totals[2],
                totals[3], totals[4], totals[5], totals[6], totals[7]);
        assertThat(totals[0] + totals[2]).as("frames lost over all schedules").isPositive();
        assertThat(totals[5]).as("retransmitted packets over all schedules").isPositive();
    }

    private int examplesRun;
    /** dropped, duplicated, corrupted, delayed, reordered, retransmitted_pkts, local_ack_timeouts, completer_retry_err. */
    private final long[] totals = new long[8];

    // ---------------------------------------------------------------------------------------------
    // The workload

    /**
     * One send WR. {@code source}: offset in A's SOURCE (SENDs, WRITEs); {@code remote}: offset in
     * B's TARGET (WRITEs) or READ_ONLY (READs), or the atomic word; {@code operand}/{@code swap}:
     * FETCH_ADD's addend, CMP_SWP's compare and swap values; {@code slack}: receive buffer bytes
     * beyond the message.
     */
    record Op(WrOpcode opcode, int length, int source, int remote, boolean signaled, int imm, long operand,
              long swap, int slack) {
        boolean consumesReceive() {
            return opcode.isSend() || opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        }

        @Override
        public String toString() {
            return switch (opcode) {
                case SEND, SEND_WITH_IMM -> opcode + " " + length + " B from src+" + source
                        + (opcode.hasImmediate() ? " imm 0x" + Integer.toHexString(imm) : "") + " recv +" + slack;
                case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> opcode + " " + length + " B src+" + source + " → target+" + remote
                        + (opcode.hasImmediate() ? " imm 0x" + Integer.toHexString(imm) + " recv +" + slack : "");
                case RDMA_READ -> opcode + " " + length + " B from read-only+" + remote;
                case ATOMIC_FETCH_AND_ADD -> opcode + " word " + remote + " add " + operand;
                case ATOMIC_CMP_AND_SWP -> opcode + " word " + remote + " compare " + operand + " swap " + swap;
                default -> opcode.toString();
            } + (signaled ? "" : " unsignaled");
        }
    }

    record Workload(Mtu mtu, List<Op> ops, long memorySeed) {
        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("RC path MTU ").append(mtu.bytes()).append(", memory seed ")
                    .append(memorySeed);
            for (int i = 0; i < ops.size(); i++) {
                text.append(String.format("%n    op #%d: %s", i, ops.get(i)));
            }
            return text.toString();
        }
    }

    static Gen<Workload> workloads() {
        return Generate.enumValues(Mtu.class).flatMap(mtu -> lists().of(op(mtu.bytes())).ofSizeBetween(1, MAX_OPS)
                .zip(longs().all(), (ops, seed) -> new Workload(mtu, List.copyOf(ops), seed)));
    }

    private static Gen<Op> op(int mtu) {
        Gen<Integer> lengths = integers().between(0, 3 * mtu + 64)
                .mix(Generate.pick(List.of(0, 1, mtu - 1, mtu, mtu + 1, 2 * mtu, 3 * mtu)), 40);
        return Generate.pick(RC_OPCODES).flatMap(opcode -> (opcode.isAtomic() ? Generate.constant(8) : lengths)
                .flatMap(length -> integers().between(0, 1 << 20).zip(integers().between(0, 1 << 20),
                        integers().between(0, 9), integers().all(), (source, remote, signal, imm) -> new int[] {
                                source, remote, signal, imm})
                        .zip(integers().between(0, 6), integers().between(0, 99), integers().between(0, 64),
                                (r, operand, swap, slack) -> {
                                    int remote = switch (opcode) {
                                        case RDMA_READ -> r[1] % (READ_ONLY_SIZE - length + 1);
                                        case ATOMIC_FETCH_AND_ADD, ATOMIC_CMP_AND_SWP -> r[1] % ATOMIC_WORDS;
                                        default -> r[1] % (TARGET_SIZE - length + 1);
                                    };
                                    // FETCH_ADD adds 1..7; CMP_SWP compares with 0..6 (atomic words start at
                                    // 0..3 and grow slowly, so a compare often matches) and swaps in 0..99.
                                    long add = opcode == WrOpcode.ATOMIC_FETCH_AND_ADD ? operand + 1 : operand;
                                    return new Op(opcode, length, r[0] % (SOURCE_SIZE - length + 1), remote,
                                            r[2] != 0, r[3], add, swap, slack);
                                })));
    }

    // ---------------------------------------------------------------------------------------------
    // The fault schedule, as data

    /**
     * Faults on one direction of the link, probabilities in percent: {@code delay} holds a frame back
     * by {@code delayMicros} (1..40 µs, with reordering still inside one ACK timeout: it costs no
     * retry), {@code late} by {@code lateMicros} (66..200 µs, past the ACK timeout: the frame meets
     * its own retransmission, so for retry_cnt it is a loss).
     */
    record LinkFaults(int drop, int duplicate, int reorder, int corrupt, int delay, int late, int reorderWindowMicros,
                      int delayMicros, int lateMicros) {
        /**
         * Every rule, even at probability 0: rule i draws from split i of the seed, so a shrunk
         * probability leaves the other rules' choices as they were and only removes faults.
         */
        Faults addTo(Faults plan, FrameMatch where) {
            return plan.drop(drop / 100.0, where)
                    .duplicate(duplicate / 100.0, where)
                    .reorder(reorder / 100.0, Duration.ofNanos(reorderWindowMicros * 1000L), where)
                    .corrupt(corrupt / 100.0, where)
                    .delay(delay / 100.0, Duration.ofNanos(delayMicros * 1000L), where)
                    .delay(late / 100.0, Duration.ofNanos(lateMicros * 1000L), where);
        }
    }

    record Schedule(LinkFaults aToB, LinkFaults bToA, long seed) {
        Faults plan() {
            return bToA.addTo(aToB.addTo(Faults.seeded(seed), FrameMatch.from(MAC_A).andTo(MAC_B)),
                    FrameMatch.from(MAC_B).andTo(MAC_A));
        }

        @Override
        public String toString() {
            return plan().describe();
        }
    }

    static Gen<Schedule> schedules() {
        return linkFaults().zip(linkFaults(), longs().all(), Schedule::new);
    }

    private static Gen<LinkFaults> linkFaults() {
        Gen<Integer> loss = integers().between(0, MAX_LOSS_PERCENT);
        Gen<Integer> late = integers().between(0, MAX_LATE_PERCENT);
        Gen<Integer> harmless = integers().between(0, MAX_HARMLESS_PERCENT);
        return loss.zip(harmless, harmless, loss, (drop, dup, reorder, corrupt) -> new int[] {drop, dup, reorder, corrupt})
                .zip(harmless, late, integers().between(1, 20), (p, delay, lateP, window) -> new int[] {
                        p[0], p[1], p[2], p[3], delay, lateP, window})
                .zip(integers().between(1, 40), integers().between(66, 200), (p, delayBy, lateBy) ->
                        new LinkFaults(p[0], p[1], p[2], p[3], p[4], p[5], p[6], delayBy, lateBy));
    }

    // ---------------------------------------------------------------------------------------------
    // Running and comparing

    /** What a run leaves: every completion of each CQ in order, both memories, and what happened. */
    record Outcome(List<WorkCompletion> completionsA, List<WorkCompletion> completionsB, byte[] memoryA,
                   byte[] memoryB, FaultCounters faults, PortCounters countersA) {
        String counters() {
            StringBuilder text = new StringBuilder();
            for (String name : List.of("retransmitted_pkts", "local_ack_timeouts", "rcvd_seq_err", "completer_retry_err",
                    "retry_exceeded_err")) {
                text.append(name).append('=').append(countersA.get(name)).append(' ');
            }
            return text.toString().trim();
        }

        long retransmitted() {
            return countersA.get("retransmitted_pkts");
        }

        long timeouts() {
            return countersA.get("local_ack_timeouts");
        }

        long goBacks() {
            return countersA.get("completer_retry_err");
        }
    }

    private void tally(Outcome outcome) {
        examplesRun++;
        FaultCounters f = outcome.faults();
        long[] these = {f.dropped(), f.duplicated(), f.corrupted(), f.delayed(), f.reordered(), outcome.retransmitted(),
                outcome.timeouts(), outcome.goBacks()};
        for (int i = 0; i < totals.length; i++) {
            totals[i] += these[i];
        }
    }

    private static Outcome check(Workload workload, Schedule schedule, long qtSeed) {
        Outcome expected = run(workload, null);
        Faults plan = schedule.plan();
        Outcome actual = run(workload, plan);
        String why = String.format("%s%nworkload: %s%nQuickTheories seed %d (rerun with -DQT_SEED=%d)%n"
                        + "fault counters %s%nRNIC A counters %s", plan.describe(), workload, qtSeed, qtSeed,
                actual.faults(), actual.counters());
        assertThat(actual.completionsA()).as("A's send completions (wr_id, status, opcode, byte_len, ...) in order%n%s", why)
                .containsExactlyElementsOf(expected.completionsA());
        assertThat(actual.completionsB()).as("B's receive completions in order%n%s", why)
                .containsExactlyElementsOf(expected.completionsB());
        assertThat(firstDifference(actual.memoryA(), expected.memoryA())).as("first differing byte of A's memory%n%s", why)
                .isEqualTo(-1);
        assertThat(firstDifference(actual.memoryB(), expected.memoryB())).as("first differing byte of B's memory%n%s", why)
                .isEqualTo(-1);
        return actual;
    }

    private static int firstDifference(byte[] x, byte[] y) {
        return Arrays.mismatch(x, y);
    }

    static Outcome run(Workload workload, Faults plan) {
        return run(workload, plan, null);
    }

    /** As above, capturing the run to {@code pcap} when not null (to look at a failure in Wireshark). */
    static Outcome run(Workload workload, Faults plan, java.nio.file.Path pcap) {
        try (TwoNodes nodes = new TwoNodes()) {
            if (pcap != null) {
                try {
                    nodes.fabric.tap(pcap);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            TwoNodes.Side a = nodes.a;
            TwoNodes.Side b = nodes.b;
            SplittableRandom random = new SplittableRandom(workload.memorySeed());
            fill(a.memory, SOURCE, SOURCE_SIZE, random);
            fill(b.memory, READ_ONLY, READ_ONLY_SIZE, random);
            for (int w = 0; w < ATOMIC_WORDS; w++) {
                b.memory.set(ValueLayout.JAVA_LONG, ATOMICS + 8L * w, w);
            }
            Qp[] pair = nodes.rcPair(workload.mtu(), rtr -> { }, FaultScheduleProperties::fastRetry, rtr -> { },
                    FaultScheduleProperties::fastRetry);
            if (plan != null) {
                nodes.fabric.faults(plan);
            }
            List<Op> ops = workload.ops();
            int receives = 0;
            for (Op op : ops) {
                if (op.consumesReceive()) {
                    pair[1].postRecv(RecvWr.of(1000 + receives, b.mr, RECEIVES + (long) receives * SLICE,
                            op.length() + op.slack()));
                    receives++;
                }
            }
            for (int i = 0; i < ops.size(); i++) {
                pair[0].postSend(sendWr(i, ops.get(i), a, b));
            }
            List<WorkCompletion> completionsA = a.pollAll();
            List<WorkCompletion> completionsB = b.pollAll();
            nodes.fabric.runUntilIdle(); // late duplicates and delayed frames too: they must change nothing
            completionsA.addAll(a.pollAll());
            completionsB.addAll(b.pollAll());
            return new Outcome(completionsA, completionsB, a.memory.toArray(ValueLayout.JAVA_BYTE),
                    b.memory.toArray(ValueLayout.JAVA_BYTE), nodes.fabric.faultCounters(),
                    a.context.queryPortCounters(1));
        }
    }

    static void fastRetry(QpAttr rts) {
        rts.timeout(ACK_TIMEOUT).retryCnt(7).rnrRetry(7);
    }

    private static SendWr sendWr(int i, Op op, TwoNodes.Side a, TwoNodes.Side b) {
        long wrId = 1 + i;
        long result = RESULTS + (long) i * SLICE;
        SendWr wr = switch (op.opcode()) {
            case SEND -> SendWr.send(wrId, a.mr, SOURCE + op.source(), op.length());
            case SEND_WITH_IMM -> SendWr.sendWithImm(wrId, a.mr, SOURCE + op.source(), op.length(), op.imm());
            case RDMA_WRITE -> SendWr.rdmaWrite(wrId, a.mr, SOURCE + op.source(), op.length(),
                    b.mr.address() + TARGET + op.remote(), b.mr.rkey());
            case RDMA_WRITE_WITH_IMM -> SendWr.rdmaWrite(wrId, a.mr, SOURCE + op.source(), op.length(),
                    b.mr.address() + TARGET + op.remote(), b.mr.rkey()).opcode(WrOpcode.RDMA_WRITE_WITH_IMM)
                    .immData(op.imm());
            case RDMA_READ -> SendWr.rdmaRead(wrId, a.mr, result, op.length(),
                    b.mr.address() + READ_ONLY + op.remote(), b.mr.rkey());
            case ATOMIC_FETCH_AND_ADD -> SendWr.fetchAndAdd(wrId, a.mr, result,
                    b.mr.address() + ATOMICS + 8L * op.remote(), b.mr.rkey(), op.operand());
            case ATOMIC_CMP_AND_SWP -> SendWr.compareAndSwap(wrId, a.mr, result,
                    b.mr.address() + ATOMICS + 8L * op.remote(), b.mr.rkey(), op.operand(), op.swap());
            default -> throw new IllegalArgumentException(op.toString());
        };
        return wr.signaled(op.signaled());
    }

    private static void fill(MemorySegment memory, long offset, int length, SplittableRandom random) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, offset, length);
    }
}
