package org.roce4j.bench;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.Bth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Psn;
import org.roce4j.wire.Reth;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.UdpHeader;
import org.roce4j.wire.pcap.PcapWriter;

/**
 * A long RC capture for {@link AnalyzeBenchmark}: one QP pair, WRITE Only requests of 64 bytes in
 * rounds of 8 acknowledged by one coalesced ACK; every 100th round loses its third WRITE, gets a
 * sequence NAK and goes back, so every analysis path (gaps, NAKs, go-backs, duplicates) runs.
 * Frames are 1 µs apart; the same count always gives the same bytes.
 */
final class AnalyzeCapture {
    private static final int WRITES_PER_ROUND = 8;
    private static final int LOSSY_ROUND_EVERY = 100;
    private static final int FIRST_PSN = 0xABCDE0;

    private final FrameEncoder encoder = new FrameEncoder();
    private final byte[] payload = new byte[64];
    private PcapWriter writer;
    private long written;
    private long limit;

    private AnalyzeCapture() {}

    /** Writes exactly {@code frames} frames to {@code file}. */
    static Path write(Path file, long frames) throws IOException {
        AnalyzeCapture capture = new AnalyzeCapture();
        capture.limit = frames;
        try (PcapWriter writer = PcapWriter.create(file)) {
            capture.writer = writer;
            int psn = FIRST_PSN;
            for (long round = 0; capture.written < frames; round++) {
                boolean lossy = round % LOSSY_ROUND_EVERY == LOSSY_ROUND_EVERY - 1;
                for (int i = 0; i < WRITES_PER_ROUND; i++) {
                    if (!(lossy && i == 2)) {
                        capture.write(Psn.add(psn, i));
                    }
                }
                if (lossy) {
                    capture.nak(Psn.add(psn, 2));
                    for (int i = 2; i < WRITES_PER_ROUND; i++) {
                        capture.write(Psn.add(psn, i)); // go-back: 2 resent, 3..7 are duplicates
                    }
                }
                capture.ack(Psn.add(psn, WRITES_PER_ROUND - 1));
                psn = Psn.add(psn, WRITES_PER_ROUND);
            }
        }
        return file;
    }

    private void write(int psn) throws IOException {
        emit(true, RocePacket.of(Bth.of(Opcode.RC_RDMA_WRITE_ONLY, 0x22, psn),
                List.of(new Reth(0x7f00_0000_0000L, 0x1234, payload.length)), payload));
    }

    private void ack(int psn) throws IOException {
        emit(false, RocePacket.of(Bth.of(Opcode.RC_ACKNOWLEDGE, 0x11, psn), Aeth.ack(AethSyndrome.Ack.INVALID_CREDIT_COUNT, 0)));
    }

    private void nak(int psn) throws IOException {
        emit(false, RocePacket.of(Bth.of(Opcode.RC_ACKNOWLEDGE, 0x11, psn), Aeth.nak(NakCode.PSN_SEQUENCE_ERROR, 0)));
    }

    private void emit(boolean request, RocePacket packet) throws IOException {
        if (written == limit) {
            return;
        }
        Inet4Address a = ipv4("10.0.0.1");
        Inet4Address b = ipv4("10.0.0.2");
        RoceFrame frame = new RoceFrame(
                new EthernetHeader(MacAddress.parse(request ? "02:00:00:00:00:02" : "02:00:00:00:00:01"),
                        MacAddress.parse(request ? "02:00:00:00:00:01" : "02:00:00:00:00:02"), EthernetHeader.ETHERTYPE_IPV4),
                new Ipv4Header(0, 0, true, 64, request ? a : b, request ? b : a), UdpHeader.toRocePort(0xC000), packet);
        writer.write(written * 1_000, encoder.encode(frame));
        written++;
    }

    private static Inet4Address ipv4(String literal) {
        try {
            return (Inet4Address) InetAddress.getByName(literal);
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }
}
