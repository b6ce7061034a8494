package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WorkCompletion;

/**
 * The extended QP ({@code ibv_create_qp_ex}, {@code send_ops_flags}) and its {@code ibv_wr_*} builder: which
 * operations each QP type may be created for (EOPNOTSUPP otherwise: rdma-core's rxe provider, check_qp_init_attr),
 * a batch of every operation posted by one {@code ibv_wr_complete}, and the errors a batch collects (ENOSPC: the
 * send queue fills, more SGEs or inline data than the QP takes) after which {@code ibv_wr_complete} posts nothing.
 */
@ExtendWith(Backend.Resolver.class)
class ExtendedQpTest {
    private static final Set<SendOpsFlag> RC_OPS = EnumSet.of(SendOpsFlag.SEND, SendOpsFlag.SEND_WITH_IMM,
            SendOpsFlag.RDMA_WRITE, SendOpsFlag.RDMA_WRITE_WITH_IMM, SendOpsFlag.RDMA_READ,
            SendOpsFlag.ATOMIC_CMP_AND_SWP, SendOpsFlag.ATOMIC_FETCH_AND_ADD);
    private static final int SIGNALED = SendFlag.SIGNALED.bit();

    private final Backend backend;

    ExtendedQpTest(Backend backend) {
        this.backend = backend;
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"UD, RDMA_WRITE", "UD, ATOMIC_FETCH_AND_ADD", "UC, RDMA_READ", "UC, ATOMIC_CMP_AND_SWP", "UC, LOCAL_INV",
            "RC, TSO"})
    @DisplayName("rxe check_qp_init_attr: ibv_create_qp_ex with an operation the QP type cannot build → EOPNOTSUPP")
    void unsupportedSendOpsAreRefused(QpType type, SendOpsFlag op) throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            QpInitAttr base = QpInitAttr.of(type, e.cq, QpCap.of(4, 4));
            Expect.errno("ibv_create_qp_ex " + type + " with IBV_QP_EX_WITH_" + op, Errno.EOPNOTSUPP,
                    () -> e.track(e.pd.createQpEx(new QpInitAttrEx(base, EnumSet.of(SendOpsFlag.SEND, op)))));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"RC", "UC", "UD"})
    @DisplayName("rxe check_qp_init_attr: SEND and SEND_WITH_IMM are accepted on every QP type")
    void sendOpsEveryTypeBuildsAreAccepted(QpType type) throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            QpInitAttr base = QpInitAttr.of(type, e.cq, QpCap.of(4, 4));
            Expect.succeeds("ibv_create_qp_ex " + type + " with SEND | SEND_WITH_IMM", () -> e.track(e.pd.createQpEx(
                    new QpInitAttrEx(base, EnumSet.of(SendOpsFlag.SEND, SendOpsFlag.SEND_WITH_IMM)))));
        }
    }

    @Test
    @DisplayName("ibv_wr_start … ibv_wr_complete: a batch of SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, READ, "
            + "CMP_AND_SWP and FETCH_AND_ADD is posted at once; each completes in order with its wr_id and opcode")
    void oneBatchOfEveryRcOperation() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connectEx(a, b, QpType.RC, Mtu.MTU_1024, QpCap.of(16, 16), QpPair.remoteAccess(), RC_OPS);
            QpEx qp = pair.exA();
            Mr local = a.register(4096);
            Mr remote = b.register(4096);
            Mr recv = b.register(1024);
            byte[] send = Bytes.pattern(1, 100);
            byte[] write = Bytes.pattern(2, 300);
            byte[] read = Bytes.pattern(3, 200);
            Bytes.write(local.segment(), 0, send);
            Bytes.write(local.segment(), 512, write);
            Bytes.write(remote.segment(), 2048, read);
            Bytes.u64(remote.segment(), 3000, 41);
            Bytes.u64(remote.segment(), 3008, 7);
            pair.qpB.postRecv(List.of(RecvWr.of(901, recv, 0, 512), RecvWr.of(902, recv, 512, 512)));
            pair.qpB.postRecv(RecvWr.of(903, recv, 0, 0));

            qp.wrStart();
            qp.wrId(1); qp.wrFlags(SIGNALED); qp.wrSend(); qp.wrSetSge(local, 0, 100);
            qp.wrId(2); qp.wrSendImm(0x0A0B0C0D); qp.wrSetSge(local, 0, 100);
            qp.wrId(3); qp.wrRdmaWrite(remote.rkey(), remote.address()); qp.wrSetSge(local, 512, 300);
            qp.wrId(4); qp.wrRdmaWriteImm(remote.rkey(), remote.address() + 1024, 0x11223344);
            qp.wrSetSge(local, 512, 300);
            qp.wrId(5); qp.wrRdmaRead(remote.rkey(), remote.address() + 2048); qp.wrSetSge(local, 1024, 200);
            qp.wrId(6); qp.wrAtomicFetchAdd(remote.rkey(), remote.address() + 3000, 1); qp.wrSetSge(local, 2048, 8);
            qp.wrId(7); qp.wrAtomicCmpSwp(remote.rkey(), remote.address() + 3008, 7, 99); qp.wrSetSge(local, 2056, 8);
            Expect.outcome("ibv_wr_complete", 0, qp.wrComplete());

            List<WorkCompletion> sent = Completions.await(a.cq, 7);
            WcOpcode[] opcodes = {WcOpcode.SEND, WcOpcode.SEND, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_WRITE,
                    WcOpcode.RDMA_READ, WcOpcode.FETCH_ADD, WcOpcode.COMP_SWAP};
            for (int i = 0; i < 7; i++) {
                Expect.success(sent.get(i), i + 1, opcodes[i]);
            }
            List<WorkCompletion> received = Completions.await(b.cq, 3);
            Expect.success(received.get(0), 901, WcOpcode.RECV);
            Expect.success(received.get(1), 902, WcOpcode.RECV);
            assertThat(received.get(1).immData()).as("SEND_WITH_IMM's immediate").isEqualTo(0x0A0B0C0D);
            Expect.success(received.get(2), 903, WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(received.get(2).immData()).as("WRITE_WITH_IMM's immediate").isEqualTo(0x11223344);
            Bytes.assertAt(recv.segment(), 512, send, "SEND_WITH_IMM's data");
            Bytes.assertAt(remote.segment(), 0, write, "RDMA WRITE's data");
            Bytes.assertAt(remote.segment(), 1024, write, "RDMA WRITE_WITH_IMM's data");
            Bytes.assertAt(local.segment(), 1024, read, "RDMA READ's data");
            assertThat(Bytes.u64(local.segment(), 2048)).as("FETCH_AND_ADD's original").isEqualTo(41);
            assertThat(Bytes.u64(remote.segment(), 3000)).as("after FETCH_AND_ADD").isEqualTo(42);
            assertThat(Bytes.u64(local.segment(), 2056)).as("CMP_AND_SWP's original").isEqualTo(7);
            assertThat(Bytes.u64(remote.segment(), 3008)).as("after CMP_AND_SWP").isEqualTo(99);
        }
    }

    @Test
    @DisplayName("ibv_wr_set_sge_list, ibv_wr_set_inline_data(_list) and ibv_wr_set_ud_addr: a UD batch gathers "
            + "SGEs and inline buffers into the datagrams")
    void udBatchWithSgeListAndInlineData() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connectEx(a, b, QpType.UD, Mtu.MTU_1024, new QpCap(8, 8, 2, 1, 64),
                    QpPair.remoteAccess(), EnumSet.of(SendOpsFlag.SEND, SendOpsFlag.SEND_WITH_IMM));
            QpEx qp = pair.exA();
            Mr local = a.register(256);
            Mr recv = b.register(1024);
            byte[] first = Bytes.pattern(11, 30);
            byte[] second = Bytes.pattern(12, 20);
            Bytes.write(local.segment(), 0, first);
            Bytes.write(local.segment(), 100, second);
            MemorySegment inlineA = a.allocate(10);
            MemorySegment inlineB = a.allocate(6);
            Bytes.write(inlineA, 0, Bytes.pattern(13, 10));
            Bytes.write(inlineB, 0, Bytes.pattern(14, 6));
            pair.qpB.postRecv(List.of(RecvWr.of(1, recv, 0, 512), RecvWr.of(2, recv, 512, 512)));

            qp.wrStart();
            qp.wrId(10); qp.wrFlags(SIGNALED); qp.wrSend();
            qp.wrSetUdAddr(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY);
            qp.wrSetSgeList(new ScatterGatherList().add(local, 0, 30).add(local, 100, 20));
            qp.wrId(11); qp.wrFlags(SIGNALED | SendFlag.INLINE.bit()); qp.wrSendImm(0x55);
            qp.wrSetUdAddr(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY);
            qp.wrSetInlineDataList(List.of(inlineA, inlineB));
            Expect.outcome("ibv_wr_complete", 0, qp.wrComplete());

            List<WorkCompletion> sent = Completions.await(a.cq, 2);
            Expect.success(sent.get(0), 10, WcOpcode.SEND);
            Expect.success(sent.get(1), 11, WcOpcode.SEND);
            List<WorkCompletion> received = Completions.await(b.cq, 2);
            Expect.success(received.get(0), 1, WcOpcode.RECV);
            assertThat(received.get(0).byteLen()).as("byte_len, GRH included").isEqualTo(40 + 50);
            Bytes.assertAt(recv.segment(), 40, first, "first SGE");
            Bytes.assertAt(recv.segment(), 70, second, "second SGE");
            Expect.success(received.get(1), 2, WcOpcode.RECV);
            assertThat(received.get(1).byteLen()).as("byte_len, GRH included").isEqualTo(40 + 16);
            Bytes.assertAt(recv.segment(), 512 + 40, Bytes.pattern(13, 10), "first inline buffer");
            Bytes.assertAt(recv.segment(), 512 + 50, Bytes.pattern(14, 6), "second inline buffer");
        }
    }

    @Test
    @DisplayName("rxe check_qp_queue_full: a batch one WQE longer than the send queue → ibv_wr_complete ENOSPC and "
            + "nothing of it posted; the next batch is posted")
    void batchLongerThanTheSendQueueIsEnospcAndPostsNothing() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connectEx(a, b, QpType.RC, Mtu.MTU_1024, QpCap.of(4, 4), QpPair.remoteAccess(),
                    RC_OPS);
            QpEx qp = pair.exA();
            // ibv_query_qp's depth: kernel 6.1's ibv_create_qp writes back the depth asked, not the one granted.
            int depth = qp.query(EnumSet.of(QpAttrMask.CAP)).cap().maxSendWr();
            Mr local = a.register(64);
            Mr remote = b.register(64);
            qp.wrStart();
            qp.wrFlags(SIGNALED);
            for (int i = 0; i <= depth; i++) {
                qp.wrId(i);
                qp.wrRdmaWrite(remote.rkey(), remote.address());
                qp.wrSetSge(local, 0, 8);
            }
            refusedWithEnospc(pair, qp, local, remote, "ibv_wr_complete of max_send_wr + 1 WQEs", 77);
        }
    }

    @Test
    @DisplayName("rxe wr_set_sge_list: more SGEs than max_send_sge → ENOSPC at ibv_wr_complete, the batch's earlier "
            + "WQEs not posted either")
    void tooManySgesIsEnospc() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connectEx(a, b, QpType.RC, Mtu.MTU_1024, new QpCap(8, 8, 1, 1, 0),
                    QpPair.remoteAccess(), RC_OPS);
            QpEx qp = pair.exA();
            int maxSge = qp.initAttr().cap().maxSendSge();
            Mr local = a.register(1024);
            Mr remote = b.register(1024);
            ScatterGatherList tooMany = new ScatterGatherList();
            for (int i = 0; i <= maxSge; i++) {
                tooMany.add(local, 8L * i, 8);
            }
            qp.wrStart();
            qp.wrFlags(SIGNALED);
            qp.wrId(1); qp.wrRdmaWrite(remote.rkey(), remote.address()); qp.wrSetSge(local, 0, 8);
            qp.wrId(2); qp.wrRdmaWrite(remote.rkey(), remote.address()); qp.wrSetSgeList(tooMany);
            refusedWithEnospc(pair, qp, local, remote,
                    "ibv_wr_complete with " + (maxSge + 1) + " SGEs, max_send_sge " + maxSge, 78);
        }
    }

    @Test
    @DisplayName("rxe wr_set_inline_data: more inline data than max_inline_data → ENOSPC at ibv_wr_complete, nothing "
            + "posted")
    void tooMuchInlineDataIsEnospc() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connectEx(a, b, QpType.RC, Mtu.MTU_1024, new QpCap(8, 8, 1, 1, 32),
                    QpPair.remoteAccess(), RC_OPS);
            QpEx qp = pair.exA();
            int maxInline = qp.initAttr().cap().maxInlineData();
            Mr local = a.register(64);
            Mr remote = b.register(4096);
            qp.wrStart();
            qp.wrId(1); qp.wrFlags(SIGNALED | SendFlag.INLINE.bit());
            qp.wrRdmaWrite(remote.rkey(), remote.address());
            qp.wrSetInlineData(a.allocate(maxInline + 1L));
            refusedWithEnospc(pair, qp, local, remote,
                    "ibv_wr_complete with " + (maxInline + 1) + " bytes inline, max_inline_data " + maxInline, 79);
        }
    }

    @Test
    @DisplayName("ibv_wr_abort: the batch is dropped, nothing of it is posted")
    void abortPostsNothing() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connectEx(a, b, QpType.RC, Mtu.MTU_1024, QpCap.of(8, 8), QpPair.remoteAccess(),
                    RC_OPS);
            QpEx qp = pair.exA();
            Mr local = a.register(64);
            Mr remote = b.register(64);
            Bytes.write(local.segment(), 0, Bytes.pattern(5, 8));
            qp.wrStart();
            qp.wrId(1); qp.wrFlags(SIGNALED); qp.wrRdmaWrite(remote.rkey(), remote.address() + 32);
            qp.wrSetSge(local, 0, 8);
            qp.wrAbort();
            postOneWriteAndAwait(pair, qp, local, remote, 80);
            Bytes.assertAt(remote.segment(), 32, new byte[8], "where the aborted WRITE would have written");
        }
    }

    /** The batch built is refused ENOSPC at complete and leaves no completion; a batch of one WRITE then works. */
    private static void refusedWithEnospc(QpPair pair, QpEx qp, Mr local, Mr remote, String check, long nextWrId) {
        Expect.outcome(check, Errno.ENOSPC.number(), qp.wrComplete());
        assertThat(Completions.drain(pair.a.cq)).as("completions of a refused batch").isEmpty();
        postOneWriteAndAwait(pair, qp, local, remote, nextWrId);
    }

    /** One signaled 8-byte WRITE through the builder: it is posted and is the only completion there is. */
    private static void postOneWriteAndAwait(QpPair pair, QpEx qp, Mr local, Mr remote, long wrId) {
        qp.wrStart();
        qp.wrId(wrId); qp.wrFlags(SIGNALED); qp.wrRdmaWrite(remote.rkey(), remote.address()); qp.wrSetSge(local, 0, 8);
        Expect.outcome("ibv_wr_complete of one WRITE", 0, qp.wrComplete());
        List<WorkCompletion> wcs = Completions.await(pair.a.cq, 1);
        Expect.success(wcs.get(0), wrId, WcOpcode.RDMA_WRITE);
        assertThat(Completions.drain(pair.a.cq)).as("completions after the one WRITE").isEmpty();
    }
}
