package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WorkCompletion;

/**
 * Selective signaling (IBTA 10.8.1 / 11.4.1.1, ibv_create_qp's sq_sig_all): an unsignaled send WR
 * produces no completion unless the QP signals all; receives always complete; completions of one work
 * queue come in posting order (IBTA 10.8.6).
 */
@ExtendWith(Backend.Resolver.class)
class SignalingTest {
    private final Backend backend;

    SignalingTest(Backend backend) {
        this.backend = backend;
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("IBTA 10.8.1: only SIGNALED sends complete; every receive completes; all in order")
    @EnumSource(QpType.class)
    void onlySignaledSendsComplete(QpType type) throws Exception {
        run(type, false);
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("ibv_qp_init_attr.sq_sig_all: every send completes, SIGNALED or not, in order")
    @EnumSource(QpType.class)
    void sqSigAllSignalsEverySend(QpType type) throws Exception {
        run(type, true);
    }

    private void run(QpType type, boolean sigAll) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, Mtu.MTU_1024, QpPair.remoteAccess(),
                    e -> QpInitAttr.of(type, e.cq, QpCap.of(32, 32)).withSqSigAll(sigAll));
            int grh = type == QpType.UD ? 40 : 0;
            Mr src = a.register(64);
            Mr dst = b.register(16L * (64 + grh));
            for (int i = 0; i < 16; i++) {
                pair.qpB.postRecv(RecvWr.of(100 + i, dst, (long) i * (64 + grh), 64 + grh));
            }
            List<SendWr> wrs = new ArrayList<>();
            List<Long> signaled = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                boolean on = i % 4 == 3;   // 3, 7, 11, 15: the last one signaled so nothing stays pending
                SendWr wr = SendWr.send(i, src, 0, 8 + i).signaled(on);
                if (type == QpType.UD) {
                    wr.ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY);
                }
                wrs.add(wr);
                if (on || sigAll) {
                    signaled.add((long) i);
                }
            }
            pair.qpA.postSend(wrs);
            List<WorkCompletion> sends = Completions.await(a.cq, signaled.size());
            assertThat(sends).extracting(WorkCompletion::wrId).as("send completions, in posting order")
                    .containsExactlyElementsOf(signaled);
            assertThat(sends).allSatisfy(wc -> assertThat(wc.opcode()).isEqualTo(WcOpcode.SEND));
            assertThat(sends).allSatisfy(wc -> assertThat(wc.isSuccess()).isTrue());
            List<WorkCompletion> recvs = Completions.await(b.cq, 16);
            for (int i = 0; i < 16; i++) {
                Expect.success(recvs.get(i), 100 + i, WcOpcode.RECV);
                assertThat(recvs.get(i).byteLen()).as("byte_len of receive %d", i).isEqualTo(grh + 8 + i);
            }
            assertThat(Completions.drain(a.cq)).as("no completion for unsignaled WRs").isEmpty();
        }
    }
}
