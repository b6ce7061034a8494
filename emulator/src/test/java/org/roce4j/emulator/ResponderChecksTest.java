package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.Bth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.UdpHeader;

/** The responder's checks, driven with hand-made request frames; its answers read back from the tap. */
class ResponderChecksTest {
    private final TwoNodes nodes = new TwoNodes();
    private final Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
    private final CapturedFrames capture = new CapturedFrames(nodes.fabric);
    private final FrameEncoder encoder = new FrameEncoder();

    @AfterEach
    void close() {
        nodes.close();
    }

    private void deliver(Opcode opcode, int psn, int payload) {
        RoceFrame frame;
        try {
            frame = new RoceFrame(
                    new EthernetHeader(nodes.rnicB.mac(), nodes.rnicA.mac(), EthernetHeader.ETHERTYPE_IPV4),
                    new Ipv4Header(0, psn & 0xFFFF, true, 64, (Inet4Address) InetAddress.getByName("10.0.0.1"),
                            (Inet4Address) InetAddress.getByName("10.0.0.2")),
                    UdpHeader.toRocePort(0xC001),
                    RocePacket.of(Bth.of(opcode, pair[1].qpNum(), psn).withAckReq(true), List.of(), new byte[payload]));
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
        byte[] bytes = encoder.encode(frame);
        nodes.fabric.locked(() -> nodes.rnicB.rnic().onFrame(bytes, 0, bytes.length, 0));
        nodes.fabric.runUntilIdle();
    }

    private List<AethSyndrome> answers() {
        nodes.fabric.close();
        return capture.frames().stream().map(f -> f.packet().header(Aeth.class).orElseThrow().syndrome()).toList();
    }

    private List<Integer> answerPsns() {
        return capture.frames().stream().map(f -> f.packet().bth().psn()).toList();
    }

    @Test
    @DisplayName("IBTA 9.7.5.1.2: a PSN gap is NAKed once (PSN sequence error, expected PSN); a duplicate is re-ACKed")
    void sequenceErrorNakedOnceAndDuplicateReacked() {
        for (int i = 0; i < 3; i++) {
            pair[1].postRecv(RecvWr.of(i, nodes.b.mr, i * 64L, 64));
        }
        deliver(Opcode.RC_SEND_ONLY, 100, 8);
        deliver(Opcode.RC_SEND_ONLY, 102, 8);
        deliver(Opcode.RC_SEND_ONLY, 103, 8);
        deliver(Opcode.RC_SEND_ONLY, 100, 8);
        assertThat(answers()).containsExactly(new AethSyndrome.Ack(31), new AethSyndrome.Nak(NakCode.PSN_SEQUENCE_ERROR),
                new AethSyndrome.Ack(31));
        assertThat(answerPsns()).containsExactly(100, 101, 100);
        assertThat(nodes.rnicB.counter(RnicCounter.DUPLICATE_REQUESTS)).isEqualTo(1);
        assertThat(nodes.rnicB.counter(RnicCounter.OUT_OF_SEQUENCE_REQUESTS)).isEqualTo(1);
    }

    @Test
    @DisplayName("rxe check_op_seq: a MIDDLE with no FIRST is NAKed invalid request and the QP goes to error")
    void missingFirst() {
        pair[1].postRecv(RecvWr.of(1, nodes.b.mr, 0, 4096));
        deliver(Opcode.RC_SEND_MIDDLE, 100, 1024);
        assertThat(answers()).containsExactly(new AethSyndrome.Nak(NakCode.INVALID_REQUEST));
        assertThat(pair[1].state()).isEqualTo(QpState.ERR);
        assertThat(nodes.b.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.WR_FLUSH_ERR);
    }

    @Test
    @DisplayName("rxe check_length: a FIRST packet shorter than the MTU is NAKed invalid request")
    void shortFirstPacket() {
        pair[1].postRecv(RecvWr.of(1, nodes.b.mr, 0, 4096));
        deliver(Opcode.RC_SEND_FIRST, 100, 512);
        assertThat(answers()).containsExactly(new AethSyndrome.Nak(NakCode.INVALID_REQUEST));
        assertThat(nodes.b.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_INV_REQ_ERR);
    }

    @Test
    @DisplayName("IBTA 9.7.5.2.8: no receive WQE → RNR NAK carrying the QP's min_rnr_timer (12 here), at the packet's PSN")
    void rnrNak() {
        deliver(Opcode.RC_SEND_ONLY, 100, 8);
        assertThat(answers()).containsExactly(new AethSyndrome.RnrNak(12));
        assertThat(answerPsns()).containsExactly(100);
    }
}
