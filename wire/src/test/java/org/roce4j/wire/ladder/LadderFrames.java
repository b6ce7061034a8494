package org.roce4j.wire.ladder;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.roce4j.wire.Bth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.ExtensionHeader;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.UdpHeader;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.PcapngWriter;

/** Frames between 10.0.0.1 and 10.0.0.2 for the ladder's tests, and the pcapng capture of them (with comments). */
final class LadderFrames {
    static final Inet4Address A = v4("10.0.0.1");
    static final Inet4Address B = v4("10.0.0.2");

    private record Timed(long nanos, RoceFrame frame, List<String> comments) {
    }

    private final List<Timed> frames = new ArrayList<>();

    static RoceFrame frame(InetAddress from, InetAddress to, Opcode opcode, int destQp, int psn, ExtensionHeader... headers) {
        return frame(from, to, opcode, destQp, psn, 0, headers);
    }

    static RoceFrame frame(InetAddress from, InetAddress to, Opcode opcode, int destQp, int psn, int payload,
                           ExtensionHeader... headers) {
        boolean fromA = from.equals(A);
        return new RoceFrame(
                new EthernetHeader(MacAddress.parse(fromA ? "02:00:00:00:00:02" : "02:00:00:00:00:01"),
                        MacAddress.parse(fromA ? "02:00:00:00:00:01" : "02:00:00:00:00:02"), EthernetHeader.ETHERTYPE_IPV4),
                new Ipv4Header(0, 0, true, 64, (Inet4Address) from, (Inet4Address) to),
                UdpHeader.toRocePort(0xC000), RocePacket.of(Bth.of(opcode, destQp, psn), List.of(headers), new byte[payload]));
    }

    LadderFrames add(long nanos, RoceFrame frame, String... comments) {
        frames.add(new Timed(nanos, frame, List.of(comments)));
        return this;
    }

    /** The frames as a pcapng file, read back. */
    CaptureReader reader() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        FrameEncoder encoder = new FrameEncoder();
        try (PcapngWriter writer = new PcapngWriter(bytes)) {
            for (Timed timed : frames) {
                byte[] encoded = encoder.encode(timed.frame());
                writer.write(timed.nanos(), encoded, 0, encoded.length, timed.comments());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            return CaptureReader.of(new ByteArrayInputStream(bytes.toByteArray()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Ladder ladder(FrameClassifier classifier) {
        try (CaptureReader reader = reader()) {
            return CaptureLadder.read(reader, "test.pcapng", classifier, CaptureLadder.DEFAULT_MAX_FRAMES);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Inet4Address v4(String text) {
        try {
            return (Inet4Address) InetAddress.getByName(text);
        } catch (UnknownHostException impossible) {
            throw new AssertionError(impossible);
        }
    }
}
