package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.Bth;
import org.roce4j.wire.Deth;
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

/**
 * {@code roce4j decode --qp/--class/--psn}: two RC connections between the same two nodes
 * (10.0.0.1 QP 0x11 with 10.0.0.2 QP 0x22, and 0x33 with 0x44) and a CM MAD between their QP 1s.
 */
class DecodeFiltersTest {
    private static final Aeth ACK = Aeth.ack(AethSyndrome.Ack.INVALID_CREDIT_COUNT, 1);

    @TempDir
    Path dir;
    private String capture;

    @BeforeEach
    void writeCapture() throws IOException {
        Inet4Address a = (Inet4Address) InetAddress.getByName("10.0.0.1");
        Inet4Address b = (Inet4Address) InetAddress.getByName("10.0.0.2");
        List<RoceFrame> frames = List.of(
                frame(a, b, Opcode.UD_SEND_ONLY, 1, 0x000001, 256, new Deth(0x80010000, 1)),       // 1: CM MAD
                frame(a, b, Opcode.RC_RDMA_WRITE_ONLY, 0x22, 0xfffffe, 64, new Reth(0x1000, 7, 64)), // 2
                frame(b, a, Opcode.RC_ACKNOWLEDGE, 0x11, 0xfffffe, 0, ACK),                          // 3
                frame(a, b, Opcode.RC_SEND_ONLY, 0x44, 0x000100, 8),                                 // 4
                frame(b, a, Opcode.RC_ACKNOWLEDGE, 0x33, 0x000100, 0,
                        Aeth.nak(NakCode.PSN_SEQUENCE_ERROR, 1)),                                    // 5
                frame(a, b, Opcode.RC_SEND_ONLY, 0x22, 0xffffff, 8),                                 // 6
                frame(b, a, Opcode.RC_ACKNOWLEDGE, 0x11, 0xffffff, 0, ACK),                          // 7
                frame(b, a, Opcode.RC_RDMA_WRITE_ONLY, 0x11, 0x000002, 64, new Reth(0x2000, 9, 64))); // 8: 0x22 writes
        FrameEncoder encoder = new FrameEncoder();
        List<byte[]> bytes = new ArrayList<>();
        frames.forEach(frame -> bytes.add(encoder.encode(frame)));
        capture = TestCaptures.write(dir.resolve("two-connections.pcap"), bytes).toString();
    }

    private static RoceFrame frame(Inet4Address from, Inet4Address to, Opcode opcode, int destQp, int psn, int payload,
                                   ExtensionHeader... headers) {
        boolean fromA = from.getAddress()[3] == 1;
        return new RoceFrame(new EthernetHeader(MacAddress.parse(fromA ? "02:00:00:00:00:02" : "02:00:00:00:00:01"),
                MacAddress.parse(fromA ? "02:00:00:00:00:01" : "02:00:00:00:00:02"), EthernetHeader.ETHERTYPE_IPV4),
                new Ipv4Header(0, 0, true, 64, from, to), UdpHeader.toRocePort(0xC000),
                RocePacket.of(Bth.of(opcode, destQp, psn), List.of(headers), new byte[payload]));
    }

    /** The frame numbers decode lists. */
    private List<Integer> listed(String... options) {
        List<String> args = new ArrayList<>(List.of("decode", capture));
        args.addAll(List.of(options));
        TestCaptures.Run run = TestCaptures.run(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("frames:                8");
        return run.lines().stream().filter(line -> line.matches("\\d+ \\d+\\.\\d{9} .*"))
                .map(line -> Integer.parseInt(line.substring(0, line.indexOf(' ')))).toList();
    }

    @Test
    @DisplayName("--qp: the frames to that QP and those it sends back, both ways, and not the other connection's")
    void qpFilterShowsBothDirectionsOfThatConnection() {
        assertThat(listed("--qp", "0x22")).containsExactly(2, 3, 6, 7, 8);
        assertThat(listed("--qp", "0x11")).containsExactly(2, 3, 6, 7, 8);
        assertThat(listed("--qp", "68")).containsExactly(4, 5);
        assertThat(listed("--qp", "0x1")).as("a UD sender from its DETH").containsExactly(1);
        assertThat(listed("--qp", "0x22", "--qp", "0x44")).containsExactly(2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    @DisplayName("--class: by opcode class, several comma-separated; nak is any NAK syndrome")
    void classFilterShowsThoseOpcodeClasses() {
        assertThat(listed("--class", "write")).containsExactly(2, 8);
        assertThat(listed("--class", "ack")).containsExactly(3, 5, 7);
        assertThat(listed("--class", "nak")).containsExactly(5);
        assertThat(listed("--class", "cm")).containsExactly(1);
        assertThat(listed("--class", "send")).containsExactly(1, 4, 6);
        assertThat(listed("--class", "write,nak")).containsExactly(2, 5, 8);
    }

    @Test
    @DisplayName("--psn: a range with both ends included, counting up through 0xffffff to 0")
    void psnFilterTakesARangeThatMayWrap() {
        assertThat(listed("--psn", "0xfffffe-0x1")).containsExactly(1, 2, 3, 6, 7);
        assertThat(listed("--psn", "256")).containsExactly(4, 5);
        assertThat(listed("--psn", "0x2-0x100")).containsExactly(4, 5, 8);
    }

    @Test
    @DisplayName("filters compose: every one given must match; the summary says what was shown")
    void filtersCompose() {
        assertThat(listed("--qp", "0x11", "--class", "write", "--psn", "0-0x10")).containsExactly(8);
        TestCaptures.Run run = TestCaptures.run("decode", capture, "--qp", "0x11", "--class", "ack");
        assertThat(run.out()).contains("frames shown:          2 (--qp 0x000011 --class ack)");
    }

    @Test
    @DisplayName("a bad class, PSN or QPN: exit 2, one line")
    void badFilterValuesAreUsageErrors() {
        for (String[] options : List.of(new String[] {"--class", "reads"}, new String[] {"--psn", "0x1000000"},
                new String[] {"--psn", "1-2-3"}, new String[] {"--qp", "0x1000000"}, new String[] {"--qp", "eleven"})) {
            List<String> args = new ArrayList<>(List.of("decode", capture));
            args.addAll(List.of(options));
            TestCaptures.Run run = TestCaptures.run(args.toArray(String[]::new));
            assertThat(run.exitCode()).as(String.join(" ", options)).isEqualTo(2);
            assertThat(run.err().lines().count()).as(run.err()).isEqualTo(1);
            assertThat(run.out()).isEmpty();
        }
    }
}
