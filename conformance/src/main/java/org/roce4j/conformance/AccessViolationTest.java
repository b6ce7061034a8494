package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * Remote access violations on RC, with their exact effect on both sides, as Linux rxe's responder
 * (rxe_resp.c) produces them:
 * <ul>
 *   <li>an R_Key that names no region of the QP's PD, a region without the right, or a range outside the
 *       region: check_rkey → RESPST_ERR_RKEY_VIOLATION → NAK "remote access error" (IBTA 9.7.5.2.4,
 *       class C) → the requester completes REM_ACCESS_ERR;</li>
 *   <li>an operation the responder QP's qp_access_flags do not enable: check_op_valid →
 *       RESPST_ERR_UNSUPPORTED_OPCODE → NAK "invalid request" → the requester completes REM_INV_REQ_ERR.</li>
 * </ul>
 * Both are class C responder errors (do_class_ac_error sets goto_error): the responder QP moves to ERR
 * and flushes its posted receives with WR_FLUSH_ERR; the requester QP moves to ERR (IBTA 10.8.3.3) and
 * flushes every later send WR with WR_FLUSH_ERR. Nothing is written to the responder's memory.
 */
@ExtendWith(Backend.Resolver.class)
class AccessViolationTest {
    enum Op { WRITE, READ, ATOMIC }

    private static final Set<AccessFlag> ALL_REMOTE = QpPair.remoteAccess();

    private final Backend backend;

    AccessViolationTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.4 / rxe check_rkey: WRITE with an rkey that names no region → REM_ACCESS_ERR, responder to ERR")
    void wrongRkey() throws Exception {
        violation(Op.WRITE, ALL_REMOTE, Endpoint.ALL_ACCESS, false, 0x00A5A500, 0, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("IBTA 10.2.3 (PD check) / rxe lookup_mr: WRITE to a region of another PD → REM_ACCESS_ERR")
    void otherPd() throws Exception {
        violation(Op.WRITE, ALL_REMOTE, Endpoint.ALL_ACCESS, true, 0, 0, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("IBTA 10.6.3.1 / rxe lookup_mr: WRITE to a region without REMOTE_WRITE → REM_ACCESS_ERR")
    void regionWithoutRemoteWrite() throws Exception {
        violation(Op.WRITE, ALL_REMOTE, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC), false, 0, 0, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("IBTA 10.6.3.1 / rxe lookup_mr: READ from a region without REMOTE_READ → REM_ACCESS_ERR")
    void regionWithoutRemoteRead() throws Exception {
        violation(Op.READ, ALL_REMOTE, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                AccessFlag.REMOTE_ATOMIC), false, 0, 0, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("IBTA 10.6.3.1 / rxe lookup_mr: atomic on a region without REMOTE_ATOMIC → REM_ACCESS_ERR")
    void regionWithoutRemoteAtomic() throws Exception {
        violation(Op.ATOMIC, ALL_REMOTE, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
                AccessFlag.REMOTE_READ), false, 0, 0, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("rxe check_op_valid: WRITE to a QP without REMOTE_WRITE in qp_access_flags → REM_INV_REQ_ERR")
    void qpWithoutRemoteWrite() throws Exception {
        violation(Op.WRITE, EnumSet.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC), Endpoint.ALL_ACCESS,
                false, 0, 0, WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    @DisplayName("rxe check_op_valid: READ from a QP without REMOTE_READ in qp_access_flags → REM_INV_REQ_ERR")
    void qpWithoutRemoteRead() throws Exception {
        violation(Op.READ, EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC), Endpoint.ALL_ACCESS,
                false, 0, 0, WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    @DisplayName("rxe check_op_valid: atomic on a QP without REMOTE_ATOMIC in qp_access_flags → REM_INV_REQ_ERR")
    void qpWithoutRemoteAtomic() throws Exception {
        violation(Op.ATOMIC, EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ), Endpoint.ALL_ACCESS,
                false, 0, 0, WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    @DisplayName("IBTA 10.6.3.3 / rxe mr_check_range: WRITE running past the end of the region → REM_ACCESS_ERR, no byte written")
    void writePastTheEnd() throws Exception {
        violation(Op.WRITE, ALL_REMOTE, Endpoint.ALL_ACCESS, false, 0, 8, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("IBTA 10.6.3.3 / rxe mr_check_range: WRITE starting before the region → REM_ACCESS_ERR")
    void writeBeforeTheStart() throws Exception {
        violation(Op.WRITE, ALL_REMOTE, Endpoint.ALL_ACCESS, false, 0, -8, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("IBTA 10.6.3.3 / rxe mr_check_range: READ past the end of the region → REM_ACCESS_ERR")
    void readPastTheEnd() throws Exception {
        violation(Op.READ, ALL_REMOTE, Endpoint.ALL_ACCESS, false, 0, 8, WcStatus.REM_ACCESS_ERR);
    }

    @Test
    @DisplayName("ibv_dereg_mr then WRITE through the old rkey → REM_ACCESS_ERR, responder to ERR, nothing written")
    void deregisteredRegion() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Endpoint.Deregistered gone = b.deregistered();
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(3, 64));
            Mr recv = b.register(128);
            pair.qpB.postRecv(List.of(RecvWr.of(200, recv, 0, 64), RecvWr.of(201, recv, 64, 64)));
            pair.qpA.postSend(List.of(SendWr.rdmaWrite(1, src, 0, 64, gone.address(), gone.rkey()),
                    SendWr.send(2, src, 0, 8)));
            assertBothSides(pair, WcStatus.REM_ACCESS_ERR);
            Bytes.assertUntouched(gone.memory(), 0, 64, "deregistered region");
        }
    }

    @Test
    @DisplayName("IBTA 9.4.5 atomics must be 8-byte aligned: rxe validate_send_wr refuses at post (EINVAL); "
            + "a responder that sees one NAKs invalid request (REM_INV_REQ_ERR); memory unchanged either way")
    void misalignedAtomic() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr target = b.register(32);
            Bytes.canary(target.segment());
            Mr local = a.register(16);
            try {
                pair.qpA.postSend(SendWr.fetchAndAdd(1, local, 0, target.address() + 4, target.rkey(), 1));
                WorkCompletion wc = Completions.awaitOne(a.cq);
                Expect.status(wc, 1, WcStatus.REM_INV_REQ_ERR);
                assertThat(pair.qpA.state()).isEqualTo(QpState.ERR);
            } catch (VerbsException e) {
                assertThat(e.errno()).as("a refused misaligned atomic is EINVAL").isEqualTo(Errno.EINVAL);
                assertThat(Completions.drain(a.cq)).isEmpty();
            }
            Bytes.assertUntouched(target.segment(), 0, 32, "misaligned atomic target");
        }
    }

    /**
     * A's first WR violates B's protection, the second is a valid SEND; B has two receives posted.
     * rkeyXor scrambles the rkey; addressShift moves the 64-byte access relative to the 64-byte region.
     */
    private void violation(Op op, Set<AccessFlag> responderQpAccess, Set<AccessFlag> regionAccess,
                                  boolean otherPd, int rkeyXor, int addressShift, WcStatus expected) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024, org.roce4j.verbs.QpCap.of(16, 16),
                    responderQpAccess);
            var backing = b.allocate(64 + 16);
            Bytes.canary(backing);
            var region = backing.asSlice(8, 64);
            Pd pd = otherPd ? b.track(b.context.allocPd()) : b.pd;
            Mr target = b.track(pd.regMr(region, regionAccess));
            if (op == Op.ATOMIC) {
                Bytes.u64(region, 0, 0x0102_0304_0506_0708L);
            }
            byte[] before = Bytes.read(backing, 0, 80);
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(7, 64));
            Mr dst = a.register(64);
            Bytes.canary(dst.segment());
            Mr recv = b.register(128);
            pair.qpB.postRecv(List.of(RecvWr.of(200, recv, 0, 64), RecvWr.of(201, recv, 64, 64)));
            long address = target.address() + addressShift;
            int rkey = target.rkey() ^ rkeyXor;
            SendWr bad = switch (op) {
                case WRITE -> SendWr.rdmaWrite(1, src, 0, 64, address, rkey);
                case READ -> SendWr.rdmaRead(1, dst, 0, 64, address, rkey);
                case ATOMIC -> SendWr.fetchAndAdd(1, dst, 0, address, rkey, 1);
            };
            pair.qpA.postSend(List.of(bad, SendWr.send(2, src, 0, 8)));
            assertBothSides(pair, expected);
            Bytes.assertAt(backing, 0, before, "responder memory around and in the region");
            if (op != Op.WRITE) {
                Bytes.assertUntouched(dst.segment(), 0, 64, "requester buffer of a failed " + op);
            }
        }
    }

    private static void assertBothSides(QpPair pair, WcStatus expected) {
        List<WorkCompletion> sends = Completions.await(pair.a.cq, 2);
        Expect.status(sends.get(0), 1, expected);
        Expect.status(sends.get(1), 2, WcStatus.WR_FLUSH_ERR);
        assertThat(pair.qpA.state()).as("requester QP after a NAK (IBTA 10.8.3.3)").isEqualTo(QpState.ERR);
        List<WorkCompletion> recvs = Completions.await(pair.b.cq, 2);
        Expect.flushed(recvs, 200, 201);
        assertThat(pair.qpB.state()).as("responder QP after a class C error (rxe do_class_ac_error)")
                .isEqualTo(QpState.ERR);
        assertThat(Completions.drain(pair.a.cq)).isEmpty();
        assertThat(Completions.drain(pair.b.cq)).isEmpty();
    }
}
