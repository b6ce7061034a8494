package org.roce4j.wire.ladder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.wire.ladder.LadderFrames.A;
import static org.roce4j.wire.ladder.LadderFrames.B;
import static org.roce4j.wire.ladder.LadderFrames.frame;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.Deth;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrame;

class QpPeersTest {
    private static final Aeth ACK = Aeth.ack(AethSyndrome.Ack.INVALID_CREDIT_COUNT, 1);

    private static QpPeers learn(List<RoceFrame> frames) {
        QpPeers peers = new QpPeers();
        frames.forEach(peers::observe);
        return peers;
    }

    @Test
    void anRcFramesSenderIsTheQpWhoseStreamBackSharesItsPsns_IBTA_9_7_5_1() {
        // Two connections between the same two nodes: A 0x11 <-> B 0x21 (PSNs from 0x100), A 0x12 <-> B 0x22 (0x500).
        RoceFrame writeTo21 = frame(A, B, Opcode.RC_SEND_ONLY, 0x21, 0x100);
        RoceFrame writeTo22 = frame(A, B, Opcode.RC_SEND_ONLY, 0x22, 0x500);
        RoceFrame ackTo12 = frame(B, A, Opcode.RC_ACKNOWLEDGE, 0x12, 0x500, ACK);
        RoceFrame ackTo11 = frame(B, A, Opcode.RC_ACKNOWLEDGE, 0x11, 0x100, ACK);
        QpPeers peers = learn(List.of(writeTo21, writeTo22, ackTo12, ackTo11));

        assertThat(peers.source(writeTo21)).isEqualTo(new Endpoint(A, 0x11));
        assertThat(peers.source(writeTo22)).isEqualTo(new Endpoint(A, 0x12));
        assertThat(peers.source(ackTo11)).isEqualTo(new Endpoint(B, 0x21));
        assertThat(peers.source(ackTo12)).isEqualTo(new Endpoint(B, 0x22));
        assertThat(QpPeers.destination(ackTo12)).isEqualTo(new Endpoint(A, 0x12));
    }

    @Test
    void withNoSharedPsnTheOnlyStreamBackIsThePeer() {
        RoceFrame request = frame(A, B, Opcode.RC_SEND_ONLY, 0x21, 0x100);
        RoceFrame otherRequest = frame(B, A, Opcode.RC_SEND_ONLY, 0x11, 0x900); // B's own requests, no ACKs captured

        assertThat(learn(List.of(request, otherRequest)).source(request)).isEqualTo(new Endpoint(A, 0x11));
    }

    @Test
    void aUdFramesSenderIsItsDethSourceQp_IBTA_9_3_3() {
        RoceFrame datagram = frame(A, B, Opcode.UD_SEND_ONLY, 0x21, 7, new Deth(0x11111111, 0x33));

        assertThat(learn(List.of(datagram)).source(datagram)).isEqualTo(new Endpoint(A, 0x33));
    }

    @Test
    void aStreamWithNothingComingBackHasAnUnknownSender() {
        RoceFrame uc = frame(A, B, Opcode.UC_SEND_ONLY, 0x21, 7);
        QpPeers peers = learn(List.of(uc));

        assertThat(peers.source(uc).qpn()).isEqualTo(Endpoint.UNKNOWN_QPN);
        assertThat(peers.source(uc).name()).isEqualTo("10.0.0.1 QP ?");
    }
}
