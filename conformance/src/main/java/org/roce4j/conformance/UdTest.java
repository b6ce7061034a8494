package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * Unreliable Datagram over RoCEv2: the 40-byte GRH at the head of every receive buffer (IBTA 11.4.1.2;
 * for RoCEv2 over IPv4 the IPv4 header sits in its last 20 bytes, as rxe's execute() copies ip_hdr into
 * roce4grh), byte_len counting those 40 bytes, WcFlag.GRH, src_qp; Q_Key checks; the MTU limit.
 */
@ExtendWith(Backend.Resolver.class)
class UdTest {
    private final Backend backend;

    UdTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA 11.4.1.2 / rxe execute(): UD receive holds the 40-byte GRH with the IPv4 header in bytes 20..39, byte_len = payload + 40, GRH flag, src_qp")
    void grhAndCompletionFields() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UD, Mtu.MTU_1024);
            int length = 100;
            byte[] data = Bytes.pattern(40, length);
            Mr src = a.register(length);
            Bytes.write(src.segment(), 0, data);
            Mr dst = b.register(40 + length + 32);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 40 + length + 16));
            pair.qpA.postSend(SendWr.send(2, src, 0, length).ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            WorkCompletion wc = Completions.awaitOne(b.cq);
            Expect.success(wc, 1, WcOpcode.RECV);
            assertThat(wc.byteLen()).as("byte_len includes the GRH").isEqualTo(40 + length);
            assertThat(wc.has(WcFlag.GRH)).as("IBV_WC_GRH").isTrue();
            assertThat(wc.srcQp()).as("src_qp").isEqualTo(pair.qpA.qpNum());
            assertThat(wc.qpNum()).as("qp_num").isEqualTo(pair.qpB.qpNum());
            assertThat(wc.has(WcFlag.WITH_IMM)).isFalse();

            byte[] ip = Bytes.read(dst.segment(), 20, 20);
            assertThat(ip[0]).as("IPv4 version 4, IHL 5").isEqualTo((byte) 0x45);
            int totalLength = (ip[2] & 0xFF) << 8 | (ip[3] & 0xFF);
            // IPv4 20 + UDP 8 + BTH 12 + DETH 8 + payload + ICRC 4
            assertThat(totalLength).as("IPv4 total length").isEqualTo(20 + 8 + 12 + 8 + length + 4);
            assertThat(ip[9]).as("IPv4 protocol UDP").isEqualTo((byte) 17);
            assertThat(java.util.Arrays.copyOfRange(ip, 12, 16)).as("IPv4 source address = sender's GID")
                    .isEqualTo(a.gid().toInetAddress().getAddress());
            assertThat(java.util.Arrays.copyOfRange(ip, 16, 20)).as("IPv4 destination address = receiver's GID")
                    .isEqualTo(b.gid().toInetAddress().getAddress());
            Expect.outcome("IPv4 header checksum in the GRH", "verifies",
                    ipv4Checksum(ip) == 0xFFFF ? "verifies" : "does not verify");
            Bytes.assertAt(dst.segment(), 40, data, "UD payload after the GRH");
            Bytes.assertUntouched(dst.segment(), 40 + length, 32, "after the UD payload");
        }
    }

    @Test
    @DisplayName("IBTA 9.4.1: UD SEND_WITH_IMM carries imm_data and WITH_IMM alongside the GRH")
    void sendWithImmediate() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UD, Mtu.MTU_1024);
            Mr src = a.register(16);
            Mr dst = b.register(64);
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 64));
            pair.qpA.postSend(SendWr.sendWithImm(2, src, 0, 16, 0xA1B2C3D4).ud(pair.ahToB, pair.qpB.qpNum(),
                    QpPair.QKEY));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            WorkCompletion wc = Completions.awaitOne(b.cq);
            Expect.success(wc, 1, WcOpcode.RECV);
            assertThat(wc.flags()).contains(WcFlag.GRH, WcFlag.WITH_IMM);
            assertThat(wc.immData()).isEqualTo(0xA1B2C3D4);
            assertThat(wc.byteLen()).isEqualTo(56);
        }
    }

    @Test
    @DisplayName("IBTA 10.2.5 (Q_Key check) / rxe check_keys: a datagram with the wrong Q_Key is dropped, no completion; the receive stays posted")
    void qkeyMismatchIsDropped() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UD, Mtu.MTU_1024);
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(11, 64));
            Mr dst = b.register(128);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 128));
            sendDatagram(pair, SendWr.send(2, src, 0, 32), QpPair.QKEY + 1);
            assertThat(Completions.drain(b.cq)).as("no completion for a wrong Q_Key").isEmpty();
            Bytes.assertUntouched(dst.segment(), 0, 128, "receive buffer of a dropped datagram");

            sendDatagram(pair, SendWr.send(3, src, 32, 32), QpPair.QKEY);
            WorkCompletion wc = Completions.awaitOne(b.cq);
            Expect.success(wc, 1, WcOpcode.RECV);
            Bytes.assertAt(dst.segment(), 40, Bytes.read(src.segment(), 32, 32), "the datagram with the right Q_Key");
        }
    }

    @Test
    @DisplayName("A UD datagram longer than the posted receive buffer never takes the UD QP to ERR: it is dropped "
            + "with no completion (IBTA responder class D, rxe_resp.c drop_msg), the receive stays posted for the next")
    void datagramLongerThanReceiveBufferKeepsQpInRts() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UD, Mtu.MTU_1024);
            Mr src = a.register(128);
            Bytes.write(src.segment(), 0, Bytes.pattern(13, 128));
            Mr dst = b.register(64);
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 64));   // 40 bytes of GRH, then room for 24
            sendDatagram(pair, SendWr.send(2, src, 0, 100), QpPair.QKEY);
            Expect.outcome("completions of the datagram too long", "[]",
                    Completions.drain(b.cq).stream().map(wc -> wc.wrId() + " " + wc.status()).toList());
            Expect.outcome("state of the UD QP", QpState.RTS, pair.qpB.state());

            sendDatagram(pair, SendWr.send(3, src, 0, 16), QpPair.QKEY);
            WorkCompletion wc = Completions.await(b.cq, 1, "receives of the datagram that fits").getFirst();
            Expect.success(wc, 1, WcOpcode.RECV);
            assertThat(wc.byteLen()).isEqualTo(40 + 16);
            Bytes.assertAt(dst.segment(), 40, Bytes.read(src.segment(), 0, 16), "the datagram that fits");
        }
    }

    /** Sends {@code wr} from A to B's QP with this Q_Key and waits for its successful send completion. */
    private static void sendDatagram(QpPair pair, SendWr wr, int qkey) {
        pair.qpA.postSend(wr.ud(pair.ahToB, pair.qpB.qpNum(), qkey));
        Expect.success(Completions.awaitOne(pair.a.cq), wr.wrId(), WcOpcode.SEND);
    }

    @Test
    @DisplayName("IBTA 10.2.5 controlled Q_Keys / rxe: a WR Q_Key with the high bit set sends the QP's own Q_Key")
    void controlledQkeyUsesTheQpsQkey() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UD, Mtu.MTU_1024);
            Mr src = a.register(16);
            Mr dst = b.register(64);
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 64));
            pair.qpA.postSend(SendWr.send(2, src, 0, 16).ud(pair.ahToB, pair.qpB.qpNum(), 0x8000_0000));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            Expect.success(Completions.await(b.cq, 1, "receives of the datagram").getFirst(), 1, WcOpcode.RECV);
        }
    }

    @Test
    @DisplayName("IBTA C10-93.1.1: a UD message longer than the port MTU emits no packet and no error (or is refused at post with EINVAL)")
    void messageLongerThanMtu() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UD, Mtu.MTU_1024);
            int mtu = a.context.queryPort(Endpoint.PORT).activeMtu().bytes();
            Mr src = a.register(mtu + 1);
            Mr dst = b.register(40 + mtu + 64);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 40 + mtu + 64));
            try {
                pair.qpA.postSend(SendWr.send(2, src, 0, mtu + 1).ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY));
                WorkCompletion wc = Completions.awaitOne(a.cq);
                Expect.status(wc, 2, WcStatus.SUCCESS);   // "the CI shall not generate an error" (rxe fakes success)
            } catch (VerbsException e) {
                assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            }
            assertThat(Completions.drain(b.cq)).as("no packet was emitted").isEmpty();
            Bytes.assertUntouched(dst.segment(), 0, 40 + mtu + 64, "receive buffer");
        }
    }

    @Test
    @DisplayName("IBTA 9.6.1.1 (UD one packet per message): a UD message of exactly the port MTU is delivered")
    void messageOfExactlyTheMtu() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.UD, Mtu.MTU_1024);
            int mtu = a.context.queryPort(Endpoint.PORT).activeMtu().bytes();
            byte[] data = Bytes.pattern(mtu, mtu);
            Mr src = a.register(mtu);
            Bytes.write(src.segment(), 0, data);
            Mr dst = b.register(40 + mtu);
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 40 + mtu));
            pair.qpA.postSend(SendWr.send(2, src, 0, mtu).ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            WorkCompletion wc = Completions.awaitOne(b.cq);
            Expect.success(wc, 1, WcOpcode.RECV);
            assertThat(wc.byteLen()).isEqualTo(40 + mtu);
            Bytes.assertAt(dst.segment(), 40, data, "MTU-sized datagram");
        }
    }

    /** The one's-complement sum of the ten 16-bit words; 0xFFFF when the checksum field is right (RFC 1071). */
    private static int ipv4Checksum(byte[] header) {
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += (header[i] & 0xFF) << 8 | (header[i + 1] & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return sum;
    }
}
