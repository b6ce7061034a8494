package org.roce4j.wire.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The edges of pcapng's fields: each limit accepted exactly up to where the format stops. */
class PcapngEdgesTest {

    @ParameterizedTest(name = "if_tsresol 0x{0}: {1} units are {2} ns")
    @CsvSource({"09, 7, 7", "06, 7, 7000", "0C, 7000, 7", "12, 7000000000, 7", "00, 7, 7000000000",
                "9E, 1073741824, 1000000000", "BE, 4611686018427387904, 1000000000"})
    @DisplayName("timestamps in any decimal or binary resolution up to what 64 bits can count become nanoseconds")
    void timestampResolutions(String tsresol, String units, long nanos) throws IOException {
        byte[] file = oneEnhancedPacket((byte) Integer.parseInt(tsresol, 16), 0, Long.parseUnsignedLong(units), 4, 4);

        assertThat(only(file).timestampNanos()).isEqualTo(nanos);
    }

    @ParameterizedTest(name = "if_tsresol 0x{0}")
    @CsvSource({"13", "BF"})
    @DisplayName("an if_tsresol finer than 10^-18 or 2^-62 s is BAD_BLOCK_CONTENT")
    void tooFineAResolution(String tsresol) {
        byte[] file = oneEnhancedPacket((byte) Integer.parseInt(tsresol, 16), 0, 1, 4, 4);

        assertProblem(file, PcapFormatException.Problem.BAD_BLOCK_CONTENT);
    }

    @Test
    @DisplayName("a timestamp up to 2^63-1 ns reads; one more, or before 1970 by if_tsoffset, is TIMESTAMP_OUT_OF_RANGE")
    void timestampRange() throws IOException {
        assertThat(only(oneEnhancedPacket((byte) 9, 0, Long.MAX_VALUE, 4, 4)).timestampNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(only(oneEnhancedPacket((byte) 9, 0, 0, 4, 4)).timestampNanos()).isZero();
        assertProblem(oneEnhancedPacket((byte) 9, 0, Long.MIN_VALUE, 4, 4),
                PcapFormatException.Problem.TIMESTAMP_OUT_OF_RANGE);
        assertProblem(oneEnhancedPacket((byte) 9, -1, 999_999_999, 4, 4), PcapFormatException.Problem.TIMESTAMP_OUT_OF_RANGE);
        assertThat(only(oneEnhancedPacket((byte) 9, -1, 1_000_000_000, 4, 4)).timestampNanos()).isZero();
    }

    @Test
    @DisplayName("a packet filling its block exactly reads; an original length up to 2^31-1 reads, 2^31 is BAD_BLOCK_CONTENT")
    void packetLengths() throws IOException {
        CapturedPacket exact = only(oneEnhancedPacket((byte) 9, 0, 1, 4, Integer.MAX_VALUE));
        assertThat(exact.data()).hasSize(4);
        assertThat(exact.originalLength()).isEqualTo(Integer.MAX_VALUE);
        assertThat(exact.truncated()).isTrue();
        assertThat(only(oneEnhancedPacket((byte) 9, 0, 1, 4, 4)).truncated()).isFalse();
        assertProblem(oneEnhancedPacket((byte) 9, 0, 1, 4, 1L << 31), PcapFormatException.Problem.BAD_BLOCK_CONTENT);
        assertProblem(oneEnhancedPacket((byte) 9, 0, 1, 5, 5), PcapFormatException.Problem.BAD_BLOCK_CONTENT);
    }

    @Test
    @DisplayName("a Simple Packet Block of 2^31-1 bytes on the wire reads as far as captured; 2^31 is BAD_BLOCK_CONTENT")
    void simplePacketLengths() throws IOException {
        byte[] tail = block(Pcapng.SIMPLE_PACKET, b -> b.putInt(Integer.MAX_VALUE).put(new byte[] {1, 2, 3, 4}));
        assertThat(only(concat(headerAndInterface((byte) 9, 0, 4), tail)).originalLength()).isEqualTo(Integer.MAX_VALUE);

        byte[] tooLong = block(Pcapng.SIMPLE_PACKET, b -> b.putInt(Integer.MIN_VALUE).put(new byte[] {1, 2, 3, 4}));
        assertProblem(concat(headerAndInterface((byte) 9, 0, 4), tooLong), PcapFormatException.Problem.BAD_BLOCK_CONTENT);
    }

    @Test
    @DisplayName("an option that fills its block to the end reads; one byte more is BAD_BLOCK_CONTENT; a 12-byte block of no kind is skipped")
    void optionsAndEmptyBlocks() throws IOException {
        byte[] commentToTheEnd = block(Pcapng.ENHANCED_PACKET, b -> b.putInt(0).putInt(0).putInt(1).putInt(0).putInt(0)
                .putShort((short) Pcapng.OPT_COMMENT).putShort((short) 4).put("abcd".getBytes()));
        byte[] empty = block(0x0BAD, b -> { });
        assertThat(only(concat(headerAndInterface((byte) 9, 0, 0), concat(empty, commentToTheEnd))).comments())
                .containsExactly("abcd");

        byte[] past = block(Pcapng.ENHANCED_PACKET, b -> b.putInt(0).putInt(0).putInt(1).putInt(0).putInt(0)
                .putShort((short) Pcapng.OPT_COMMENT).putShort((short) 5).put("abcd".getBytes()));
        assertProblem(concat(headerAndInterface((byte) 9, 0, 0), past), PcapFormatException.Problem.BAD_BLOCK_CONTENT);
    }

    @Test
    @DisplayName("a bad block's message names the length it needs and where the file ended; a bad second section names its own offset")
    void messagesAndOffsets() throws IOException {
        byte[] start = headerAndInterface((byte) 9, 0, 0);
        byte[] eight = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(0x0BAD).putInt(8).array();
        assertThatThrownBy(() -> readAll(concat(start, eight))).isInstanceOf(PcapFormatException.class)
                .hasMessageContaining("at least 12");
        byte[] cut = java.util.Arrays.copyOf(block(0x0BAD, b -> b.putLong(0)), 14);
        assertThatThrownBy(() -> readAll(concat(start, cut))).isInstanceOf(PcapFormatException.class)
                .hasMessageContaining("after 14");
        byte[] secondSection = headerAndInterface((byte) 9, 0, 0);
        secondSection[12] = 2; // major version 2
        assertThatThrownBy(() -> readAll(concat(start, secondSection)))
                .isInstanceOfSatisfying(PcapFormatException.class, e -> assertThat(e.offset()).isEqualTo(start.length));
    }

    @Test
    @DisplayName("closing a reader closes its stream; CaptureReader.read hands out the packets one by one")
    void closingAndReading() throws IOException {
        ClosingStream in = new ClosingStream(headerAndInterface((byte) 9, 0, 0));
        new PcapngReader(in).close();
        assertThat(in.closed).isTrue();

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PcapngWriter writer = new PcapngWriter(bytes)) {
            writer.write(3, new byte[] {1, 2});
        }
        ClosingStream again = new ClosingStream(bytes.toByteArray());
        try (CaptureReader reader = CaptureReader.of(again)) {
            assertThat(reader.read()).hasValueSatisfying(packet -> assertThat(packet.timestampNanos()).isEqualTo(3));
            assertThat(reader.read()).isEmpty();
        }
        assertThat(again.closed).isTrue();
    }

    @Test
    @DisplayName("PcapngWriter: interface and timestamp checked, a comment up to 65535 bytes, flush writes what was made, nothing after close")
    void writerLimits() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PcapngWriter writer = new PcapngWriter(bytes);
        byte[] frame = {1};
        assertThatIllegalArgumentException().isThrownBy(() -> writer.write(1, 0, frame, 0, 1, List.of()));
        assertThatIllegalArgumentException().isThrownBy(() -> writer.write(-1, 0, frame, 0, 1, List.of()));
        assertThatIllegalArgumentException().isThrownBy(() -> writer.write(0, -1, frame, 0, 1, List.of()));
        assertThatIllegalArgumentException().isThrownBy(() -> writer.write(0, 0, frame, 0, 1, List.of("x".repeat(65536))));
        writer.flush();
        assertThat(bytes.size()).as("section header and interface 0, flushed").isEqualTo(28 + 32);
        writer.write(0, 0, frame, 0, 1, List.of("y".repeat(65535)));
        writer.close();
        assertThat(readAll(bytes.toByteArray()).getFirst().comments().getFirst()).hasSize(65535);
        assertThatThrownBy(() -> writer.write(0, 0, frame, 0, 1, List.of())).isInstanceOf(IOException.class);
        assertThatThrownBy(writer::flush).isInstanceOf(IOException.class);
        writer.close(); // twice: nothing
    }

    @Test
    @DisplayName("CapturedPacket: equal by value, comments included; a record of the same fields; checked components")
    void capturedPacketValues() {
        CapturedPacket packet = new CapturedPacket(0, LinkType.ETHERNET, 5, 3, new byte[] {1, 2, 3}, List.of("c"));

        assertThat(packet).isEqualTo(new CapturedPacket(0, LinkType.ETHERNET, 5, 3, new byte[] {1, 2, 3}, List.of("c")))
                .hasSameHashCodeAs(new CapturedPacket(0, LinkType.ETHERNET, 5, 3, new byte[] {1, 2, 3}, List.of("c")))
                .isNotEqualTo(new CapturedPacket(0, LinkType.ETHERNET, 5, 3, new byte[] {1, 2, 3}, List.of()))
                .isNotEqualTo(new CapturedPacket(1, LinkType.ETHERNET, 5, 3, new byte[] {1, 2, 3}, List.of("c")));
        assertThat(packet.toPcapRecord()).isEqualTo(new PcapRecord(5, 3, new byte[] {1, 2, 3}));
        assertThat(packet.toString()).contains("interfaceId=0", "data=3 bytes", "comments=[c]");
        assertThatIllegalArgumentException().isThrownBy(
                () -> new CapturedPacket(-1, LinkType.ETHERNET, 0, 0, new byte[0], List.of()));
        assertThat(new CapturedPacket(0, LinkType.ETHERNET, 0, 0, new byte[0], List.of()).truncated()).isFalse();
    }

    private static final class ClosingStream extends FilterInputStream {
        boolean closed;

        ClosingStream(byte[] bytes) {
            super(new ByteArrayInputStream(bytes));
        }

        @Override
        public void close() throws IOException {
            closed = true;
            super.close();
        }
    }

    /** A little-endian section with one Ethernet interface, then an Enhanced Packet Block. */
    private static byte[] oneEnhancedPacket(byte tsresol, long tsoffsetSeconds, long units, int captured, long original) {
        byte[] packet = block(Pcapng.ENHANCED_PACKET, b -> b.putInt(0).putInt((int) (units >>> 32)).putInt((int) units)
                .putInt(captured).putInt((int) original).put(new byte[4]));
        return concat(headerAndInterface(tsresol, tsoffsetSeconds, 0), packet);
    }

    private static byte[] headerAndInterface(byte tsresol, long tsoffsetSeconds, int snaplen) {
        byte[] section = block(Pcapng.SECTION_HEADER, b -> b.putInt(Pcapng.BYTE_ORDER_MAGIC).putShort((short) 1)
                .putShort((short) 0).putLong(-1));
        byte[] description = block(Pcapng.INTERFACE_DESCRIPTION, b -> b.putShort((short) 1).putShort((short) 0)
                .putInt(snaplen).putShort((short) Pcapng.IF_TSRESOL).putShort((short) 1).put(tsresol).put(new byte[3])
                .putShort((short) Pcapng.IF_TSOFFSET).putShort((short) 8).putLong(tsoffsetSeconds).putInt(0));
        return concat(section, description);
    }

    private interface Body {
        void fill(ByteBuffer body);
    }

    private static byte[] block(int type, Body body) {
        ByteBuffer content = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
        body.fill(content);
        int length = 12 + content.position();
        return ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN).putInt(type).putInt(length)
                .put(content.array(), 0, content.position()).putInt(length).array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static CapturedPacket only(byte[] file) throws IOException {
        List<CapturedPacket> packets = readAll(file);
        assertThat(packets).hasSize(1);
        return packets.getFirst();
    }

    private static List<CapturedPacket> readAll(byte[] file) throws IOException {
        List<CapturedPacket> packets = new java.util.ArrayList<>();
        try (CaptureReader reader = CaptureReader.of(new ByteArrayInputStream(file))) {
            for (Optional<CapturedPacket> next = reader.read(); next.isPresent(); next = reader.read()) {
                packets.add(next.get());
            }
        }
        return packets;
    }

    private static void assertProblem(byte[] file, PcapFormatException.Problem problem) {
        assertThatThrownBy(() -> readAll(file)).isInstanceOfSatisfying(PcapFormatException.class,
                e -> assertThat(e.problem()).isEqualTo(problem));
    }
}
