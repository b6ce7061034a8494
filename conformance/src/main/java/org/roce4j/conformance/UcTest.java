package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WorkCompletion;

/**
 * Unreliable Connected (IBTA 9.8): no ACKs, so nothing at the requester depends on the responder. A send
 * completes successfully once transmitted; a message the responder cannot take is silently dropped
 * (rxe: class D, drop_msg) and the responder QP stays in RTS, ready for the next message.
 */
@ExtendWith(Backend.Resolver.class)
class UcTest {
    private final Backend backend;

    UcTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA 9.8: UC SEND with no receive posted completes SUCCESS at the requester; the message is dropped, the next one is delivered")
    void sendWithoutReceiveIsDropped() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UC, Mtu.MTU_1024);
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(1, 64));
            pair.qpA.postSend(SendWr.send(1, src, 0, 32));
            Expect.success(Completions.awaitOne(a.cq), 1, WcOpcode.SEND);
            assertThat(Completions.drain(b.cq)).isEmpty();
            assertThat(pair.qpB.state()).isEqualTo(QpState.RTS);

            Mr dst = b.register(64);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(RecvWr.of(2, dst, 0, 64));
            Bytes.write(src.segment(), 0, Bytes.pattern(2, 64));
            pair.qpA.postSend(SendWr.send(3, src, 0, 40));
            Expect.success(Completions.awaitOne(a.cq), 3, WcOpcode.SEND);
            WorkCompletion recv = Completions.awaitOne(b.cq);
            Expect.success(recv, 2, WcOpcode.RECV);
            assertThat(recv.byteLen()).isEqualTo(40);
            Bytes.assertAt(dst.segment(), 0, Bytes.pattern(2, 40), "the second message, not the dropped one");
        }
    }

    @Test
    @DisplayName("IBTA 9.8 / rxe class D: UC WRITE with a bad rkey completes SUCCESS at the requester, writes nothing, responder stays RTS")
    void writeWithBadRkeyIsSilentlyDropped() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UC, Mtu.MTU_1024);
            Mr target = b.register(64);
            Bytes.canary(target.segment());
            Mr src = a.register(64);
            byte[] data = Bytes.pattern(5, 64);
            Bytes.write(src.segment(), 0, data);
            pair.qpA.postSend(SendWr.rdmaWrite(1, src, 0, 64, target.address(), target.rkey() ^ 0x00A5A500));
            Expect.success(Completions.awaitOne(a.cq), 1, WcOpcode.RDMA_WRITE);
            assertThat(Completions.drain(b.cq)).isEmpty();
            Bytes.assertUntouched(target.segment(), 0, 64, "UC target of a bad rkey");
            assertThat(pair.qpA.state()).isEqualTo(QpState.RTS);
            assertThat(pair.qpB.state()).isEqualTo(QpState.RTS);

            pair.qpA.postSend(SendWr.rdmaWrite(2, src, 0, 64, target.address(), target.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.RDMA_WRITE);
            Completions.drain(b.cq);
            Bytes.assertAt(target.segment(), 0, data, "the valid WRITE after the dropped one");
        }
    }

    @Test
    @DisplayName("rxe check_op_valid (UC): WRITE to a QP without REMOTE_WRITE is dropped; requester SUCCESS; nothing written")
    void writeToQpWithoutRemoteWriteIsDropped() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UC, Mtu.MTU_1024, org.roce4j.verbs.QpCap.of(8, 8),
                    EnumSet.noneOf(AccessFlag.class));
            Mr target = b.register(64);
            Bytes.canary(target.segment());
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(6, 64));
            pair.qpA.postSend(SendWr.rdmaWrite(1, src, 0, 64, target.address(), target.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 1, WcOpcode.RDMA_WRITE);
            Completions.drain(b.cq);
            Bytes.assertUntouched(target.segment(), 0, 64, "UC target without REMOTE_WRITE on the QP");
            assertThat(pair.qpB.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    @DisplayName("IBTA 9.8: UC SEND larger than the receive buffer: requester SUCCESS, nothing delivered past the buffer")
    void sendTooLongIsNotAckDependent() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UC, Mtu.MTU_1024);
            Mr src = a.register(128);
            Mr dst = b.register(128);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 32));
            pair.qpA.postSend(SendWr.send(2, src, 0, 100));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            Bytes.assertUntouched(dst.segment(), 32, 96, "past the UC receive buffer");
        }
    }
}
