package org.roce4j.wire.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** pcapng (draft-ietf-opsawg-pcapng) as roce4j writes it and as Wireshark's tools write it. */
class PcapngTest {

    private static final byte[] FRAME = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

    @Test
    @DisplayName("PcapngWriter -> CaptureReader: interfaces with their link types, nanosecond timestamps, lengths, bytes and comments come back")
    void writtenPacketsReadBack() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] jumbo = new byte[PcapWriter.SNAPLEN + 10];
        jumbo[7] = 42;
        try (PcapngWriter writer = new PcapngWriter(bytes)) {
            int infiniband = writer.addInterface(new LinkType(247));
            writer.write(1_700_000_000_123_456_789L, FRAME);
            writer.write(infiniband, 5, FRAME, 2, 7, List.of("ICRC corrupted by rule 1", "né 2"));
            writer.write(0, 6, jumbo, 0, jumbo.length, List.of());
        }

        List<CapturedPacket> packets = readAll(bytes.toByteArray());

        assertThat(packets).containsExactly(
                new CapturedPacket(0, LinkType.ETHERNET, 1_700_000_000_123_456_789L, FRAME.length, FRAME, List.of()),
                new CapturedPacket(1, new LinkType(247), 5, 7, new byte[] {3, 4, 5, 6, 7, 8, 9},
                        List.of("ICRC corrupted by rule 1", "né 2")),
                new CapturedPacket(0, LinkType.ETHERNET, 6, jumbo.length,
                        java.util.Arrays.copyOf(jumbo, PcapWriter.SNAPLEN), List.of()));
        assertThat(packets.get(2).truncated()).isTrue();
    }

    @Test
    @DisplayName("PcapngWriter is reproducible: the same packets give the same bytes, and every block is a multiple of 4 long")
    void reproducibleAndAligned() throws IOException {
        byte[] first = written();
        byte[] second = written();

        assertThat(first).isEqualTo(second);
        ByteBuffer view = ByteBuffer.wrap(first).order(ByteOrder.LITTLE_ENDIAN);
        int blocks = 0;
        for (int at = 0; at < first.length; blocks++) {
            int length = view.getInt(at + 4);
            assertThat(length % 4).as("block %d's length", blocks).isZero();
            assertThat(view.getInt(at + length - 4)).as("block %d's trailing length", blocks).isEqualTo(length);
            at += length;
        }
        assertThat(blocks).as("section header, interface description, one packet").isEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rxe_rc_pingpong-editcap.pcapng", "rxe_ud_pingpong-tshark.pcapng"})
    @DisplayName("pcapng written by editcap and tshark from a reference capture reads as the same packets as the classic pcap")
    void wiresharkToolsFilesReadAsTheOriginal(String sample) throws IOException {
        String original = sample.substring(0, sample.indexOf('-')) + ".pcap";
        List<CapturedPacket> fromPcap;
        try (CaptureReader reader = CaptureReader.open(ReferencePcaps.directory().resolve(original))) {
            assertThat(reader.format()).isEqualTo(CaptureReader.Format.PCAP);
            fromPcap = new ArrayList<>();
            reader.forEach(fromPcap::add);
        }
        List<CapturedPacket> fromPcapng;
        try (CaptureReader reader = CaptureReader.of(resource(sample))) {
            assertThat(reader.format()).isEqualTo(CaptureReader.Format.PCAPNG);
            fromPcapng = new ArrayList<>();
            reader.forEach(fromPcapng::add);
        }

        assertThat(fromPcapng).hasSameSizeAs(fromPcap).isNotEmpty();
        for (int i = 0; i < fromPcap.size(); i++) {
            assertThat(fromPcapng.get(i).toPcapRecord()).as("packet %d", i + 1).isEqualTo(fromPcap.get(i).toPcapRecord());
        }
        if (sample.contains("editcap")) { // made with editcap -a "3:a comment on frame 3"
            assertThat(fromPcapng.get(2).comments()).containsExactly("a comment on frame 3");
        }
    }

    @Test
    @DisplayName("a big-endian section, binary if_tsresol, if_tsoffset, a Simple Packet Block, an unknown block skipped, a second section with its own interfaces")
    void everyBlockKindAndBothByteOrders() throws IOException {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.write(sectionHeader(ByteOrder.BIG_ENDIAN));
        // interface 0: Ethernet, snaplen 4, timestamps in 2^-10 s, 100 s added
        file.write(block(ByteOrder.BIG_ENDIAN, Pcapng.INTERFACE_DESCRIPTION, b -> b.putShort((short) 1).putShort((short) 0)
                .putInt(4).putShort((short) 9).putShort((short) 1).put((byte) 0x8A).put(new byte[3])
                .putShort((short) 14).putShort((short) 8).putLong(100).putInt(0)));
        file.write(block(ByteOrder.BIG_ENDIAN, 0x00000BAD, b -> b.putInt(7))); // a custom block nobody knows
        file.write(block(ByteOrder.BIG_ENDIAN, Pcapng.ENHANCED_PACKET, b -> b.putInt(0).putInt(0).putInt(2048)
                .putInt(3).putInt(3).put(new byte[] {9, 8, 7, 0})));
        file.write(block(ByteOrder.BIG_ENDIAN, Pcapng.SIMPLE_PACKET, b -> b.putInt(6).put(new byte[] {1, 2, 3, 4})));
        file.write(sectionHeader(ByteOrder.LITTLE_ENDIAN));
        file.write(block(ByteOrder.LITTLE_ENDIAN, Pcapng.INTERFACE_DESCRIPTION, b -> b.putShort((short) 247)
                .putShort((short) 0).putInt(0)));
        file.write(block(ByteOrder.LITTLE_ENDIAN, Pcapng.OBSOLETE_PACKET, b -> b.putShort((short) 0).putShort((short) 0)
                .putInt(0).putInt(1).putInt(1).putInt(1).put(new byte[] {5, 0, 0, 0})));

        assertThat(readAll(file.toByteArray())).containsExactly(
                new CapturedPacket(0, LinkType.ETHERNET, 102_000_000_000L, 3, new byte[] {9, 8, 7}, List.of()),
                new CapturedPacket(0, LinkType.ETHERNET, 0, 6, new byte[] {1, 2, 3, 4}, List.of()),
                new CapturedPacket(0, new LinkType(247), 1_000, 1, new byte[] {5}, List.of()));
    }

    @Test
    @DisplayName("bad pcapng is a PcapFormatException naming the problem and the block's offset, and stays failed")
    void badInputIsATypedErrorAtItsBlock() throws IOException {
        byte[] good = written();
        int packetBlock = 28 + 32; // after the section header (28) and the interface description (32)

        assertProblem(java.util.Arrays.copyOf(good, good.length - 1), PcapFormatException.Problem.TRUNCATED_BLOCK, packetBlock);
        byte[] badTrailer = good.clone();
        badTrailer[good.length - 4] ^= 4;
        assertProblem(badTrailer, PcapFormatException.Problem.BAD_BLOCK_LENGTH, packetBlock);
        byte[] oddLength = good.clone();
        oddLength[packetBlock + 4] += 1;
        assertProblem(oddLength, PcapFormatException.Problem.BAD_BLOCK_LENGTH, packetBlock);
        byte[] unknownInterface = good.clone();
        unknownInterface[packetBlock + 8] = 1;
        assertProblem(unknownInterface, PcapFormatException.Problem.UNKNOWN_INTERFACE, packetBlock);
        byte[] capturedPastTheBlock = good.clone();
        capturedPastTheBlock[packetBlock + 20] = 100;
        assertProblem(capturedPastTheBlock, PcapFormatException.Problem.BAD_BLOCK_CONTENT, packetBlock);
        byte[] shortPacket = concat(java.util.Arrays.copyOf(good, packetBlock),
                block(ByteOrder.LITTLE_ENDIAN, Pcapng.ENHANCED_PACKET, b -> b.putInt(0)));
        assertProblem(shortPacket, PcapFormatException.Problem.BAD_BLOCK_CONTENT, packetBlock);
        byte[] version2 = good.clone();
        version2[12] = 2;
        assertThatThrownBy(() -> new PcapngReader(new ByteArrayInputStream(version2)))
                .isInstanceOfSatisfying(PcapFormatException.class, e -> assertThat(e.problem())
                        .isEqualTo(PcapFormatException.Problem.UNSUPPORTED_VERSION));
        byte[] byteOrder = good.clone();
        byteOrder[8] = 0;
        assertThatThrownBy(() -> new PcapngReader(new ByteArrayInputStream(byteOrder)))
                .isInstanceOfSatisfying(PcapFormatException.class, e -> assertThat(e.problem())
                        .isEqualTo(PcapFormatException.Problem.UNKNOWN_BYTE_ORDER));
    }

    @Test
    @DisplayName("any truncation or flipped byte of a pcapng file reads as packets or a PcapFormatException, never another exception")
    void damagedFilesFailCleanly() throws IOException {
        byte[] good = written();
        for (int cut = 0; cut < good.length; cut++) {
            readOrFormatError(java.util.Arrays.copyOf(good, cut));
        }
        for (int at = 0; at < good.length; at++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] flipped = good.clone();
                flipped[at] ^= (byte) (1 << bit);
                readOrFormatError(flipped);
            }
        }
    }

    @Test
    @DisplayName("PcapReader still refuses pcapng, and says what reads it")
    void classicReaderPointsAtCaptureReader() {
        assertThatThrownBy(() -> new PcapReader(new ByteArrayInputStream(written())))
                .isInstanceOfSatisfying(PcapFormatException.class,
                        e -> assertThat(e.problem()).isEqualTo(PcapFormatException.Problem.PCAPNG))
                .hasMessageContaining("CaptureReader");
    }

    private static void readOrFormatError(byte[] file) {
        try (CaptureReader reader = CaptureReader.of(new ByteArrayInputStream(file))) {
            while (reader.read().isPresent()) {
                // reading on
            }
        } catch (PcapFormatException expected) {
            // fine: a typed error
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertProblem(byte[] file, PcapFormatException.Problem problem, long offset) throws IOException {
        try (PcapngReader reader = new PcapngReader(new ByteArrayInputStream(file))) {
            assertThatThrownBy(() -> {
                while (reader.read().isPresent()) {
                    // reading on
                }
            }).isInstanceOfSatisfying(PcapFormatException.class, e -> {
                assertThat(e.problem()).isEqualTo(problem);
                assertThat(e.offset()).isEqualTo(offset);
            });
            assertThatThrownBy(reader::read).as("a second read").isInstanceOf(PcapFormatException.class);
        }
    }

    private static byte[] written() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PcapngWriter writer = new PcapngWriter(bytes)) {
            writer.write(0, 1_000, FRAME, 0, FRAME.length, List.of("dropped by rule 2"));
        }
        return bytes.toByteArray();
    }

    private static List<CapturedPacket> readAll(byte[] file) throws IOException {
        List<CapturedPacket> packets = new ArrayList<>();
        try (CaptureReader reader = CaptureReader.of(new ByteArrayInputStream(file))) {
            reader.forEach(packets::add);
        }
        return packets;
    }

    private static byte[] sectionHeader(ByteOrder order) {
        return block(order, Pcapng.SECTION_HEADER, b -> b.putInt(Pcapng.BYTE_ORDER_MAGIC).putShort((short) 1)
                .putShort((short) 0).putLong(-1));
    }

    private interface Body {
        void fill(ByteBuffer body);
    }

    private static byte[] block(ByteOrder order, int type, Body body) {
        ByteBuffer content = ByteBuffer.allocate(256).order(order);
        body.fill(content);
        int length = 12 + content.position();
        return ByteBuffer.allocate(length).order(order).putInt(type).putInt(length)
                .put(content.array(), 0, content.position()).putInt(length).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static InputStream resource(String name) {
        return PcapngTest.class.getResourceAsStream(name);
    }

}
