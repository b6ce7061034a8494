package org.roce4j.tools.analyze;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.AtomicAckEth;
import org.roce4j.wire.AtomicEth;
import org.roce4j.wire.Bth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.ExtensionHeader;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Reth;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.UdpHeader;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.PcapWriter;

/**
 * Builds a capture frame by frame with wire's encoder: requester 10.0.0.1 QP 0x11 talks to responder
 * 10.0.0.2 QP 0x22, each frame at the time given in microseconds. {@link #analyze} writes it with
 * {@link PcapWriter} and reads it back through {@link CaptureReader}, as the command does.
 */
public final class HandMadeCapture {
    static final int REQUESTER_QP = 0x11;
    static final int RESPONDER_QP = 0x22;
    private static final InetAddress REQUESTER = ip("10.0.0.1");
    private static final InetAddress RESPONDER = ip("10.0.0.2");

    private record Timed(long micros, RoceFrame frame) {}

    private final List<Timed> frames = new ArrayList<>();

    public HandMadeCapture request(long micros, Opcode opcode, int psn, int payload, ExtensionHeader... headers) {
        return add(micros, true, RocePacket.of(Bth.of(opcode, RESPONDER_QP, psn), List.of(headers), new byte[payload]));
    }

    public HandMadeCapture write(long micros, Opcode opcode, int psn, int payload) {
        return opcode.headers().contains(org.roce4j.wire.HeaderType.RETH)
                ? request(micros, opcode, psn, payload, new Reth(0x1000, 0x77, payload))
                : request(micros, opcode, psn, payload);
    }

    HandMadeCapture read(long micros, int psn, long va, int length) {
        return request(micros, Opcode.RC_RDMA_READ_REQUEST, psn, 0, new Reth(va, 0x77, length));
    }

    HandMadeCapture fetchAdd(long micros, int psn) {
        return request(micros, Opcode.RC_FETCH_ADD, psn, 0, new AtomicEth(0x2000, 0x77, 1, 0));
    }

    public HandMadeCapture ack(long micros, int psn) {
        return response(micros, RocePacket.of(Bth.of(Opcode.RC_ACKNOWLEDGE, REQUESTER_QP, psn),
                Aeth.ack(AethSyndrome.Ack.INVALID_CREDIT_COUNT, 1)));
    }

    HandMadeCapture sequenceNak(long micros, int psn) {
        return response(micros, RocePacket.of(Bth.of(Opcode.RC_ACKNOWLEDGE, REQUESTER_QP, psn),
                Aeth.nak(NakCode.PSN_SEQUENCE_ERROR, 1)));
    }

    HandMadeCapture rnrNak(long micros, int psn, int timerCode) {
        return response(micros, RocePacket.of(Bth.of(Opcode.RC_ACKNOWLEDGE, REQUESTER_QP, psn), Aeth.rnrNak(timerCode, 1)));
    }

    HandMadeCapture atomicAck(long micros, int psn, long original) {
        return response(micros, RocePacket.of(Bth.of(Opcode.RC_ATOMIC_ACKNOWLEDGE, REQUESTER_QP, psn),
                Aeth.ack(AethSyndrome.Ack.INVALID_CREDIT_COUNT, 1), new AtomicAckEth(original)));
    }

    HandMadeCapture readResponse(long micros, Opcode opcode, int psn, int payload) {
        List<ExtensionHeader> headers = opcode == Opcode.RC_RDMA_READ_RESPONSE_MIDDLE
                ? List.of() : List.of(Aeth.ack(AethSyndrome.Ack.INVALID_CREDIT_COUNT, 1));
        return response(micros, RocePacket.of(Bth.of(opcode, REQUESTER_QP, psn), headers, new byte[payload]));
    }

    private HandMadeCapture response(long micros, RocePacket packet) {
        return add(micros, false, packet);
    }

    private HandMadeCapture add(long micros, boolean fromRequester, RocePacket packet) {
        InetAddress source = fromRequester ? REQUESTER : RESPONDER;
        InetAddress destination = fromRequester ? RESPONDER : REQUESTER;
        frames.add(new Timed(micros, new RoceFrame(
                new EthernetHeader(MacAddress.parse(fromRequester ? "02:00:00:00:00:02" : "02:00:00:00:00:01"),
                        MacAddress.parse(fromRequester ? "02:00:00:00:00:01" : "02:00:00:00:00:02"), EthernetHeader.ETHERTYPE_IPV4),
                new Ipv4Header(0, 0, true, 64, (java.net.Inet4Address) source, (java.net.Inet4Address) destination),
                UdpHeader.toRocePort(0xC000), packet)));
        return this;
    }

    public Path save(Path file) throws IOException {
        FrameEncoder encoder = new FrameEncoder();
        try (PcapWriter writer = PcapWriter.create(file)) {
            for (Timed timed : frames) {
                writer.write(timed.micros * 1000, encoder.encode(timed.frame));
            }
        }
        return file;
    }

    AnalysisReport analyze(Path dir) throws IOException {
        try (CaptureReader reader = CaptureReader.open(save(dir.resolve("hand-made.pcap")))) {
            return CaptureAnalysis.analyze(reader);
        }
    }

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }
}
