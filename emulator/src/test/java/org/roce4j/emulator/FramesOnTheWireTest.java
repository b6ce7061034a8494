package org.roce4j.emulator;

import org.roce4j.emulator.node.Rnic;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.Bth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Reth;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.UdpHeader;

/** What the requester and responder put on the wire, read back from the fabric's pcap tap and decoded by wire. */
class FramesOnTheWireTest {

    @Test
    @DisplayName("IBTA 9.4: a 2500-byte SEND at MTU 1024 is FIRST/MIDDLE/LAST with consecutive PSNs, AckReq on the last; one ACK back")
    void sendSegmentation() throws Exception {
        List<RoceFrame> frames;
        int qpnA;
        int qpnB;
        try (TwoNodes nodes = new TwoNodes()) {
            CapturedFrames capture = new CapturedFrames(nodes.fabric);
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            qpnA = pair[0].qpNum();
            qpnB = pair[1].qpNum();
            pair[1].postRecv(RecvWr.of(1, nodes.b.mr, 0, 4096));
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 2500));
            assertThat(nodes.a.pollAll()).hasSize(1);
            nodes.fabric.close();
            frames = capture.frames();
        }
        assertThat(frames).extracting(f -> f.packet().opcode()).containsExactly(
                Opcode.RC_SEND_FIRST, Opcode.RC_SEND_MIDDLE, Opcode.RC_SEND_LAST, Opcode.RC_ACKNOWLEDGE);
        assertThat(frames.subList(0, 3)).extracting(f -> f.packet().bth().psn()).containsExactly(100, 101, 102);
        assertThat(frames.subList(0, 3)).extracting(f -> f.packet().bth().ackReq()).containsExactly(false, false, true);
        assertThat(frames.subList(0, 3)).extracting(f -> f.packet().payloadLength()).containsExactly(1024, 1024, 452);
        assertThat(frames.subList(0, 3)).extracting(f -> f.packet().bth().destQp()).containsOnly(qpnB);
        RoceFrame ack = frames.get(3);
        assertThat(ack.packet().bth().psn()).isEqualTo(102);
        assertThat(ack.packet().bth().destQp()).isEqualTo(qpnA);
        assertThat(ack.packet().header(Aeth.class)).hasValueSatisfying(aeth -> {
            assertThat(aeth.syndromeByte()).isEqualTo(0x1F);
            assertThat(aeth.msn()).isEqualTo(1);
        });
        // rxe's IPv4 and UDP choices: DF, TTL 64, incrementing Identification, UDP checksum 0, source port per QP.
        Ipv4Header first = (Ipv4Header) frames.get(0).ip();
        Ipv4Header second = (Ipv4Header) frames.get(1).ip();
        assertThat(first.dontFragment()).isTrue();
        assertThat(first.ttl()).isEqualTo(64);
        assertThat(second.identification()).isEqualTo(first.identification() + 1);
        assertThat(first.source()).isEqualTo(InetAddress.getByName("10.0.0.1"));
        assertThat(frames.get(0).udp().checksum()).isZero();
        assertThat(frames.get(0).udp().sourcePort()).isEqualTo(Rnic.sourcePortOf(qpnA)).isBetween(0xC000, 0xFFFF);
        assertThat(ack.udp().sourcePort()).isEqualTo(Rnic.sourcePortOf(qpnB));
    }

    @Test
    @DisplayName("rxe: AckReq on the last packet of a message and after every 64 packets")
    void ackRequestedEvery64Packets() {
        List<RoceFrame> frames;
        try (TwoNodes nodes = new TwoNodes()) {
            CapturedFrames capture = new CapturedFrames(nodes.fabric);
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_256);
            pair[0].postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, 150 * 256, nodes.b.mr.address(), nodes.b.mr.rkey()));
            assertThat(nodes.a.pollAll()).hasSize(1);
            nodes.fabric.close();
            frames = capture.frames();
        }
        List<Integer> ackRequested = frames.stream()
                .filter(f -> f.packet().opcode().isRequest() && f.packet().bth().ackReq())
                .map(f -> f.packet().bth().psn() - 100).toList();
        assertThat(ackRequested).containsExactly(63, 127, 149);
        assertThat(frames.stream().filter(f -> f.packet().opcode() == Opcode.RC_RDMA_WRITE_FIRST))
                .singleElement().satisfies(f -> assertThat(f.packet().header(Reth.class).orElseThrow().dmaLength())
                        .isEqualTo(150 * 256));
        assertThat(frames.stream().filter(f -> f.packet().opcode() == Opcode.RC_ACKNOWLEDGE)).hasSize(3);
    }

    @Test
    @DisplayName("READ: one request taking a PSN per response; responses FIRST/MIDDLE/LAST, AETH on first and last only")
    void readResponses() {
        List<RoceFrame> frames;
        try (TwoNodes nodes = new TwoNodes()) {
            CapturedFrames capture = new CapturedFrames(nodes.fabric);
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[0].postSend(SendWr.rdmaRead(1, nodes.a.mr, 0, 3000, nodes.b.mr.address(), nodes.b.mr.rkey()));
            pair[0].postSend(SendWr.send(2, nodes.a.mr, 0, 8).signaled(false));
            nodes.b.createQp(QpType.RC, 1); // unrelated QP: must not matter
            assertThat(nodes.a.pollAll()).hasSize(1);
            nodes.fabric.close();
            frames = capture.frames();
        }
        assertThat(frames).extracting(f -> f.packet().opcode()).startsWith(Opcode.RC_RDMA_READ_REQUEST,
                Opcode.RC_SEND_ONLY, Opcode.RC_RDMA_READ_RESPONSE_FIRST, Opcode.RC_RDMA_READ_RESPONSE_MIDDLE,
                Opcode.RC_RDMA_READ_RESPONSE_LAST);
        assertThat(frames.get(1).packet().bth().psn()).isEqualTo(103); // the READ took 100..102
        assertThat(frames.subList(2, 5)).extracting(f -> f.packet().bth().psn()).containsExactly(100, 101, 102);
        assertThat(frames.get(3).packet().header(Aeth.class)).isEmpty();
    }

    @Test
    @DisplayName("ACK coalescing: requests that arrive together get one ACK for the last PSN, with the MSN of all")
    void coalescedAck() throws Exception {
        List<RoceFrame> frames;
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            for (int i = 0; i < 5; i++) {
                pair[1].postRecv(RecvWr.of(i, nodes.b.mr, i * 64L, 64));
            }
            CapturedFrames capture = new CapturedFrames(nodes.fabric);
            FrameEncoder encoder = new FrameEncoder();
            Rnic rnicB = nodes.rnicB.rnic();
            nodes.fabric.locked(() -> {
                for (int psn = 100; psn < 105; psn++) {
                    byte[] frame = encoder.encode(sendOnly(nodes, pair[1].qpNum(), psn));
                    rnicB.onFrame(frame, 0, frame.length, 0);
                }
            });
            assertThat(nodes.b.pollAll()).hasSize(5);
            nodes.fabric.close();
            frames = capture.frames();
        }
        assertThat(frames).singleElement().satisfies(f -> {
            assertThat(f.packet().opcode()).isEqualTo(Opcode.RC_ACKNOWLEDGE);
            assertThat(f.packet().bth().psn()).isEqualTo(104);
            assertThat(f.packet().header(Aeth.class).orElseThrow().msn()).isEqualTo(5);
        });
    }

    private static RoceFrame sendOnly(TwoNodes nodes, int destQp, int psn) {
        try {
            return new RoceFrame(
                    new EthernetHeader(nodes.rnicB.mac(), nodes.rnicA.mac(), EthernetHeader.ETHERTYPE_IPV4),
                    new Ipv4Header(0, psn, true, 64, (Inet4Address) InetAddress.getByName("10.0.0.1"),
                            (Inet4Address) InetAddress.getByName("10.0.0.2")),
                    UdpHeader.toRocePort(0xC001),
                    RocePacket.of(Bth.of(Opcode.RC_SEND_ONLY, destQp, psn).withAckReq(true), List.of(), new byte[16]));
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
