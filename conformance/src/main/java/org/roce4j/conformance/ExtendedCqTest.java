package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.CqEx;
import org.roce4j.verbs.CqInitAttrEx;
import org.roce4j.verbs.CreateCqWcFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;

/**
 * The extended CQ ({@code ibv_create_cq_ex} with {@code wc_flags}): {@code ibv_start_poll} on an empty CQ is
 * ENOENT, a known number of completions read in place with {@code ibv_next_poll} and consumed by
 * {@code ibv_end_poll}, each field asked for read back; completion timestamps where the device gives them.
 * The polls here stop at the last completion they know of: rdma-core 44's rxe provider overruns the consumer
 * index when {@code ibv_end_poll} follows a {@code ibv_next_poll} that answered ENOENT (see docs/api-mapping.md).
 */
@ExtendWith(Backend.Resolver.class)
class ExtendedCqTest {
    private final Backend backend;

    ExtendedCqTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("ibv_start_poll on an empty extended CQ → ENOENT (and no ibv_end_poll)")
    void startPollOnAnEmptyCqIsEnoent() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            CqEx cq = e.track(e.context.createCqEx(CqInitAttrEx.of(8, CreateCqWcFlag.STANDARD)));
            Expect.outcome("ibv_start_poll on an empty CQ", Errno.ENOENT.number(), cq.startPoll());
            Expect.outcome("ibv_start_poll again", Errno.ENOENT.number(), cq.startPoll());
        }
    }

    @Test
    @DisplayName("ibv_start_poll / ibv_next_poll / ibv_end_poll: SEND_WITH_IMM and RDMA_WRITE_WITH_IMM read in place "
            + "(wr_id, status, opcode, byte_len, imm_data, qp_num, wc_flags); end_poll consumes them")
    void completionsAreReadInPlaceAndConsumedByEndPoll() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            CqEx recvCq = b.track(b.context.createCqEx(CqInitAttrEx.of(16, CreateCqWcFlag.STANDARD)));
            QpPair pair = withReceiveCq(a, b, recvCq);
            Mr src = a.register(256);
            Mr dst = b.register(256);
            pair.qpB.postRecv(List.of(RecvWr.of(71, dst, 0, 128), RecvWr.of(72, dst, 128, 0)));
            pair.qpA.postSend(SendWr.sendWithImm(1, src, 0, 100, 0x01020304));
            pair.qpA.postSend(new SendWr().wrId(2).opcode(org.roce4j.verbs.WrOpcode.RDMA_WRITE_WITH_IMM)
                    .sge(src, 0, 50).remote(dst.address() + 200, dst.rkey()).immData(0x0A0B0C0D).signaled(true));
            Completions.await(a.cq, 2);

            Expect.outcome("ibv_start_poll", 0, recvCq.startPoll());
            assertThat(recvCq.wrId()).isEqualTo(71);
            assertThat(recvCq.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(recvCq.readOpcode()).isEqualTo(WcOpcode.RECV);
            assertThat(recvCq.readByteLen()).isEqualTo(100);
            assertThat(recvCq.readImmData()).isEqualTo(0x01020304);
            assertThat(recvCq.readQpNum()).isEqualTo(pair.qpB.qpNum());
            assertThat(WcFlag.WITH_IMM.isSetIn(recvCq.readWcFlags())).as("IBV_WC_WITH_IMM").isTrue();
            Expect.outcome("ibv_next_poll", 0, recvCq.nextPoll());
            assertThat(recvCq.wrId()).isEqualTo(72);
            assertThat(recvCq.readOpcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(recvCq.readByteLen()).isEqualTo(50);
            assertThat(recvCq.readImmData()).isEqualTo(0x0A0B0C0D);
            recvCq.endPoll();
            Expect.outcome("ibv_start_poll after end_poll consumed both", Errno.ENOENT.number(), recvCq.startPoll());
        }
    }

    @Test
    @DisplayName("ibv_end_poll consumes only what was read: the completion after it is the next start_poll's")
    void endPollLeavesWhatWasNotRead() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            CqEx cq = b.track(b.context.createCqEx(CqInitAttrEx.of(16, CreateCqWcFlag.STANDARD)));
            QpPair pair = withReceiveCq(a, b, cq);
            threeSends(pair, a, b);
            Expect.outcome("ibv_start_poll", 0, cq.startPoll());
            assertThat(cq.wrId()).isEqualTo(11);
            Expect.outcome("ibv_next_poll", 0, cq.nextPoll());
            assertThat(cq.wrId()).isEqualTo(12);
            cq.endPoll();
            Expect.outcome("ibv_start_poll", 0, cq.startPoll());
            assertThat(cq.wrId()).as("the completion end_poll left").isEqualTo(13);
            assertThat(cq.readOpcode()).isEqualTo(WcOpcode.RECV);
            assertThat(cq.readByteLen()).isEqualTo(8);
            cq.endPoll();
            Expect.outcome("ibv_start_poll", Errno.ENOENT.number(), cq.startPoll());
        }
    }

    @Test
    @DisplayName("rxe rxe_create_cq_ex: wc_flags beyond what the device gives (CVLAN, FLOW_TAG, TM_INFO) → EOPNOTSUPP")
    void unsupportedWcFlagsAreRefused() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            for (CreateCqWcFlag flag : EnumSet.of(CreateCqWcFlag.CVLAN, CreateCqWcFlag.FLOW_TAG, CreateCqWcFlag.TM_INFO)) {
                Set<CreateCqWcFlag> flags = EnumSet.copyOf(CreateCqWcFlag.STANDARD);
                flags.add(flag);
                Expect.errno("ibv_create_cq_ex with IBV_WC_EX_WITH_" + flag, Errno.EOPNOTSUPP,
                        () -> e.track(e.context.createCqEx(CqInitAttrEx.of(8, flags))));
            }
        }
    }

    @Test
    @DisplayName("IBV_WC_EX_WITH_COMPLETION_TIMESTAMP: timestamps never go back from one completion to the next "
            + "(skipped where ibv_create_cq_ex refuses the flag: rdma-core 44's rxe)")
    void completionTimestampsDoNotGoBack() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            Set<CreateCqWcFlag> flags = EnumSet.copyOf(CreateCqWcFlag.STANDARD);
            flags.add(CreateCqWcFlag.COMPLETION_TIMESTAMP);
            CqEx cq;
            try {
                cq = b.track(b.context.createCqEx(CqInitAttrEx.of(16, flags)));
            } catch (VerbsException refused) {
                Assumptions.assumeTrue(false, "ibv_create_cq_ex refuses IBV_WC_EX_WITH_COMPLETION_TIMESTAMP: "
                        + refused.errno());
                return;
            }
            threeSends(withReceiveCq(a, b, cq), a, b);
            Expect.outcome("ibv_start_poll", 0, cq.startPoll());
            long previous = cq.readCompletionTs();
            for (int i = 2; i <= 3; i++) {
                Expect.outcome("ibv_next_poll", 0, cq.nextPoll());
                long ts = cq.readCompletionTs();
                assertThat(ts).as("completion_ts of wr_id " + cq.wrId()).isGreaterThanOrEqualTo(previous);
                previous = ts;
            }
            cq.endPoll();
        }
    }

    /**
     * Two RC QPs whose B side delivers its receive completions to {@code recvCq}. A's own completions of the
     * SENDs say that B's receives are complete: a responder completes the receive before it acknowledges
     * (rxe_resp.c: COMPLETE, then ACKNOWLEDGE), so the extended CQ is polled without a look that would consume.
     */
    private static QpPair withReceiveCq(Endpoint a, Endpoint b, CqEx recvCq) {
        return QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(),
                e -> e == b ? QpInitAttr.of(QpType.RC, e.cq, QpCap.of(16, 16)).withCqs(e.cq, recvCq)
                        : QpInitAttr.of(QpType.RC, e.cq, QpCap.of(16, 16)));
    }

    /** Three SENDs of 8 bytes from A, wr_ids 1..3, into receives 11..13 at B; returns once A saw them complete. */
    private static void threeSends(QpPair pair, Endpoint a, Endpoint b) {
        Mr src = a.register(64);
        Mr dst = b.register(64);
        for (int i = 1; i <= 3; i++) {
            pair.qpB.postRecv(RecvWr.of(10 + i, dst, 8L * i, 8));
        }
        for (int i = 1; i <= 3; i++) {
            pair.qpA.postSend(SendWr.send(i, src, 0, 8));
        }
        Completions.await(a.cq, 3);
    }
}
