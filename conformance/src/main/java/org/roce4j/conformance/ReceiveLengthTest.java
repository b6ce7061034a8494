package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * A SEND longer than the receive WQE's buffers (IBTA 9.9.3.1.2, responder "length error", class C;
 * IBTA 11.6.2: LOC_LEN_ERR is "generated for a Receive WR when the incoming message is larger than the
 * buffers"): the responder completes that receive with LOC_LEN_ERR and NAKs "invalid request", so the
 * requester completes REM_INV_REQ_ERR. Both QPs end in ERR.
 *
 * <p>Note: Linux rxe reports this receive as REM_INV_REQ_ERR (rxe_resp.c RESPST_ERR_LENGTH uses one
 * status for both sides); ConnectX reports LOC_LEN_ERR, as the spec's wording says. This suite follows
 * the spec.
 */
@ExtendWith(Backend.Resolver.class)
class ReceiveLengthTest {
    private final Backend backend;

    ReceiveLengthTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA 11.6.2: RC SEND of 65 bytes into a 64-byte receive → LOC_LEN_ERR at the responder, REM_INV_REQ_ERR at the requester")
    void sendLongerThanReceiveBuffer() throws Exception {
        tooLong(Mtu.MTU_1024, 65, 64);
    }

    @Test
    @DisplayName("IBTA 11.6.2: a multi-packet RC SEND overflowing the receive in its last packet → LOC_LEN_ERR / REM_INV_REQ_ERR")
    void multiPacketSendLongerThanReceiveBuffer() throws Exception {
        tooLong(Mtu.MTU_256, 3 * 256 + 1, 3 * 256);
    }

    @Test
    @DisplayName("IBTA 9.4.1: a SEND exactly as long as the receive buffer fits (no length error at the boundary)")
    void sendExactlyTheReceiveBuffer() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_256);
            Mr src = a.register(512);
            byte[] data = Bytes.pattern(9, 512);
            Bytes.write(src.segment(), 0, data);
            Mr dst = b.register(512);
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 512));
            pair.qpA.postSend(SendWr.send(2, src, 0, 512));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            WorkCompletion recv = Completions.awaitOne(b.cq);
            Expect.success(recv, 1, WcOpcode.RECV);
            assertThat(recv.byteLen()).isEqualTo(512);
            Bytes.assertAt(dst.segment(), 0, data, "receive buffer");
        }
    }

    private void tooLong(Mtu mtu, int sendLength, int recvLength) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, mtu);
            Mr src = a.register(sendLength);
            Bytes.write(src.segment(), 0, Bytes.pattern(8, sendLength));
            Mr dst = b.register(2L * recvLength + 64);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(List.of(RecvWr.of(10, dst, 0, recvLength),
                    RecvWr.of(11, dst, recvLength + 64, recvLength)));
            pair.qpA.postSend(List.of(SendWr.send(20, src, 0, sendLength), SendWr.send(21, src, 0, 1)));

            List<WorkCompletion> recvs = Completions.await(b.cq, 2);
            Expect.status(recvs.get(0), 10, WcStatus.LOC_LEN_ERR);
            Expect.status(recvs.get(1), 11, WcStatus.WR_FLUSH_ERR);
            assertThat(pair.qpB.state()).as("responder QP after a length error (class C)").isEqualTo(QpState.ERR);
            Bytes.assertUntouched(dst.segment(), recvLength, 64, "past the receive buffer");

            List<WorkCompletion> sends = Completions.await(a.cq, 2);
            Expect.status(sends.get(0), 20, WcStatus.REM_INV_REQ_ERR);
            Expect.status(sends.get(1), 21, WcStatus.WR_FLUSH_ERR);
            assertThat(pair.qpA.state()).as("requester QP after a NAK").isEqualTo(QpState.ERR);
        }
    }
}
