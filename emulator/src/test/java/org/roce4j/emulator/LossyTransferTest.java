package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.PortCounters;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * RC over a very lossy link (IBTA 9.7.5 reliable service; go-back-N 9.7.5.2.1, duplicates
 * 9.7.5.1.1, local ACK timeout and retry_cnt 9.7.6.1.3): 15% of every frame lost, 10% held back
 * up to 20 µs (reordered), 5% delivered twice, in both directions, and 10,000 SENDs and WRITEs of
 * 1 byte to 4 KiB in batches of 32 complete exactly once each, in order, bit-exact.
 *
 * <p>Two runs: the 30% loss with Linux rxe's reading of retry_cnt 7 (retry forever,
 * {@link DeviceProfile#RXE_6_12}), and 15% loss with IBTA's (seven retries).
 *
 * <h2>retry_cnt 7 and this much loss (why IBTA's reading runs at 15%, not 30%)</h2>
 * retry_cnt 7 is 7 retries, not infinite (IBTA 9.7.6.1.3; rxe makes it infinite). Forward progress
 * (an ACK, or a NAK for a later PSN) reloads it, so a WQE fails only after 8 go-backs in a row that
 * make none: once a loss starts a series of go-backs, 7 more must fail. A go-back fails when the
 * oldest unacknowledged packet is lost again (p), or it arrives and every response to it is lost.
 * Inside a batch later packets bring a NAK or ACK, so f ≈ p; for the batch's last packet there is
 * one ACK, f = 1 - (1-p)^2. Expected RETRY_EXC_ERR ≈ (series inside batches)·p^7 + (series at batch
 * ends, ≈ 313 batches · f)·f^7, with the series bounded by the go-backs this test prints:
 * <ul>
 *   <li>p = 0.30: 9,000+ go-backs · 2.2e-4 + 160 · 9.0e-3 ≈ 3.5 — with the fixed seed the run
 *       indeed fails RETRY_EXC_ERR at message 4948 after 6,811 go-backs ({@code -Droce4j.lossy.loss=0.3}):
 *       with IBTA's finite retry_cnt, 30% loss both ways over 10,000 messages is not a sound test;
 *   <li>p = 0.20: 8,982 · 1.3e-5 + 113 · 7.8e-4 ≈ 0.2;
 *   <li>p = 0.15 (used): 7,124 · 1.7e-6 + 88 · 1.3e-4 ≈ 0.02, well below 1.
 * </ul>
 * Reordering (10% within 20 µs) and duplication (5%) lose nothing; they add NAKs, go-backs and
 * duplicate requests. The seed is fixed, so the run is the same every time and the printed
 * counters show how hard it was.
 */
class LossyTransferTest {
    static final long SEED = 20261121L;
    /** Loss with IBTA's finite retry_cnt 7; {@code -Droce4j.lossy.loss=0.3} shows why not more. */
    static final double IBTA_LOSS = Double.parseDouble(System.getProperty("roce4j.lossy.loss", "0.15"));
    /** The loss rate, run with rxe's retry_cnt 7 = forever. */
    static final double RXE_LOSS = 0.30;
    static final int MESSAGES = 10_000;
    static final int BATCH = 32;
    static final int MAX_LENGTH = 4096;
    static final int SLOT = 4096;
    static final int RECEIVES = 256 * 1024;

    private TwoNodes nodes;
    private TwoNodes.Side a;
    private TwoNodes.Side b;

    @AfterEach
    void close() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    @DisplayName("IBTA 9.7.5, as rxe retries (retry_cnt 7 = forever): 10,000 RC SENDs and WRITEs (1 B..4 KiB) under 30% "
            + "loss, 10% reordering and 5% duplication both ways — one SUCCESS per WR in order, receives in order, every byte right")
    void tenThousandMessagesOverAThirtyPercentLossyLinkWithRxeRetries() {
        transferOverALossyLink(RXE_LOSS, DeviceProfile.RXE_6_12);
    }

    @Test
    @DisplayName("IBTA 9.7.5 and 9.7.6.1.3 (retry_cnt 7 = seven retries): 10,000 RC SENDs and WRITEs under 15% loss, "
            + "10% reordering and 5% duplication both ways — one SUCCESS per WR in order, receives in order, every byte right")
    void tenThousandMessagesOverAFifteenPercentLossyLinkWithIbtaRetries() {
        transferOverALossyLink(IBTA_LOSS, DeviceProfile.LINUX);
    }

    private void transferOverALossyLink(double loss, DeviceProfile profile) {
        nodes = new TwoNodes(Fabric.deterministic(), profile);
        a = nodes.a;
        b = nodes.b;
        Faults plan = Faults.seeded(SEED).drop(loss).reorder(0.10, Duration.ofNanos(20_000)).duplicate(0.05);
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.timeout(4).retryCnt(7).rnrRetry(7),
                rtr -> { }, rts -> rts.timeout(4).retryCnt(7).rnrRetry(7));
        nodes.fabric.faults(plan);
        SplittableRandom random = new SplittableRandom(SEED);
        int sends = 0;
        long bytes = 0;
        for (int first = 0; first < MESSAGES; first += BATCH) {
            int count = Math.min(BATCH, MESSAGES - first);
            List<Integer> lengths = new ArrayList<>();
            List<Boolean> isSend = new ArrayList<>();
            b.memory.asSlice(0, (long) BATCH * SLOT).fill((byte) 0);
            b.memory.asSlice(RECEIVES, (long) BATCH * SLOT).fill((byte) 0);
            int receives = 0;
            for (int i = 0; i < count; i++) {
                int seq = first + i;
                int length = 1 + random.nextInt(MAX_LENGTH);
                boolean send = random.nextBoolean();
                lengths.add(length);
                isSend.add(send);
                fill(a.memory, (long) i * SLOT, length, seq);
                if (send) {
                    pair[1].postRecv(RecvWr.of(seq, b.mr, RECEIVES + (long) receives * SLOT, SLOT));
                    receives++;
                }
            }
            for (int i = 0; i < count; i++) {
                int seq = first + i;
                pair[0].postSend(isSend.get(i)
                        ? SendWr.send(seq, a.mr, (long) i * SLOT, lengths.get(i))
                        : SendWr.rdmaWrite(seq, a.mr, (long) i * SLOT, lengths.get(i), b.mr.address() + (long) i * SLOT,
                        b.mr.rkey()));
            }
            String where = "batch from message " + first + ", " + plan;
            List<WorkCompletion> sent = a.pollAll();
            List<WorkCompletion> received = b.pollAll();
            assertThat(sent).as("send completions, %s, counters %s", where, counters()).hasSize(count);
            int r = 0;
            for (int i = 0; i < count; i++) {
                int seq = first + i;
                WorkCompletion wc = sent.get(i);
                assertThat(wc.status()).as("message %d, %s, counters %s", seq, where, counters())
                        .isEqualTo(WcStatus.SUCCESS);
                assertThat(wc.wrId()).as("message %d in order, %s", seq, where).isEqualTo(seq);
                if (isSend.get(i)) {
                    WorkCompletion rwc = received.get(r);
                    assertThat(rwc.wrId()).as("receive of message %d in order, %s", seq, where).isEqualTo(seq);
                    assertThat(rwc.status()).isEqualTo(WcStatus.SUCCESS);
                    assertThat(rwc.opcode()).isEqualTo(WcOpcode.RECV);
                    assertThat(rwc.byteLen()).as("byte_len of message %d", seq).isEqualTo(lengths.get(i));
                    assertThat(firstWrong(b.memory, RECEIVES + (long) r * SLOT, lengths.get(i), seq))
                            .as("first wrong byte of SEND %d, %s", seq, where).isEqualTo(-1);
                    r++;
                    sends++;
                } else {
                    assertThat(firstWrong(b.memory, (long) i * SLOT, lengths.get(i), seq))
                            .as("first wrong byte of WRITE %d, %s", seq, where).isEqualTo(-1);
                }
                bytes += lengths.get(i);
            }
            assertThat(received).as("receive completions, %s", where).hasSize(r);
        }
        nodes.fabric.runUntilIdle();
        assertThat(a.pollAll()).as("no late completion").isEmpty();
        assertThat(b.pollAll()).as("no late receive").isEmpty();

        PortCounters ca = a.context.queryPortCounters(1);
        PortCounters cb = b.context.queryPortCounters(1);
        System.out.printf("LossyTransferTest: %d messages (%d SENDs, %d WRITEs, %d bytes) in %.1f ms of virtual time "
                        + "under %s (retry_cnt 7 %s)%n  faults: %s%n  A: retransmitted_pkts=%d go-backs(completer_retry_err)=%d "
                        + "local_ack_timeouts=%d rcvd_seq_err(NAKs)=%d retry_exceeded_err=%d%n"
                        + "  B: naks_sent=%d duplicate_request=%d out_of_seq_request=%d%n",
                MESSAGES, sends, MESSAGES - sends, bytes, nodes.fabric.clock().nanoTime() / 1e6, plan,
                profile == DeviceProfile.RXE_6_12 ? "retries forever, as rxe" : "is seven retries, as IBTA",
                nodes.fabric.faultCounters(), ca.get("retransmitted_pkts"), ca.get("completer_retry_err"),
                ca.get("local_ack_timeouts"), ca.get("rcvd_seq_err"), ca.get("retry_exceeded_err"),
                cb.get("naks_sent"), cb.get("duplicate_request"), cb.get("out_of_seq_request"));
        assertThat(nodes.fabric.faultCounters().dropped()).as("the link did lose frames").isGreaterThan(1000);
        assertThat(ca.get("retransmitted_pkts")).isPositive();
        assertThat(ca.get("rcvd_seq_err")).as("NAKs").isPositive();
        assertThat(ca.get("local_ack_timeouts")).isPositive();
        assertThat(cb.get("duplicate_request")).isPositive();
    }

    private String counters() {
        PortCounters c = a.context.queryPortCounters(1);
        return "retransmitted_pkts=" + c.get("retransmitted_pkts") + " completer_retry_err=" + c.get("completer_retry_err")
                + " local_ack_timeouts=" + c.get("local_ack_timeouts") + " retry_exceeded_err=" + c.get("retry_exceeded_err");
    }

    /** Message {@code seq}'s bytes: its number, then a pattern of number and offset. */
    private static byte patternByte(int seq, int offset) {
        return offset < 4 ? (byte) (seq >>> (8 * offset)) : (byte) (seq * 31 + offset * 7 + (offset >>> 8));
    }

    private static void fill(MemorySegment memory, long at, int length, int seq) {
        for (int i = 0; i < length; i++) {
            memory.set(ValueLayout.JAVA_BYTE, at + i, patternByte(seq, i));
        }
    }

    private static int firstWrong(MemorySegment memory, long at, int length, int seq) {
        for (int i = 0; i < length; i++) {
            if (memory.get(ValueLayout.JAVA_BYTE, at + i) != patternByte(seq, i)) {
                return i;
            }
        }
        return -1;
    }
}
