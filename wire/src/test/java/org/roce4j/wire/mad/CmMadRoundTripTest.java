package org.roce4j.wire.mad;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every CM message and the MAD header survive encode → decode with every field, and re-encode to the same bytes. */
class CmMadRoundTripTest {
    private static final int SLACK = 5;

    @ParameterizedTest(name = "{0}: decode(encode(m)) == m for random field values")
    @EnumSource(value = CmAttribute.class, names = {"CLASS_PORT_INFO", "LAP", "APR"}, mode = EnumSource.Mode.EXCLUDE)
    void everyFieldSurvivesEncodeDecode(CmAttribute attribute) {
        qt().withExamples(500).forAll(CmGenerators.messages(attribute), longs().all()).checkAssert((message, tid) -> {
            MadHeader header = MadHeader.cm(tid, attribute);
            byte[] buf = new byte[MadHeader.MAD_SIZE + 2 * SLACK];
            assertThat(CmMad.encode(header, message, buf, SLACK)).isEqualTo(MadHeader.MAD_SIZE);

            DecodedCmMad decoded = CmMad.decode(buf, SLACK, MadHeader.MAD_SIZE);

            assertThat(decoded).isEqualTo(new DecodedCmMad.Decoded(header, message));
            assertThat(Arrays.copyOfRange(buf, 0, SLACK)).as("before the MAD").containsOnly(0);
            assertThat(Arrays.copyOfRange(buf, SLACK + MadHeader.MAD_SIZE, buf.length)).as("after the MAD").containsOnly(0);
            byte[] again = new byte[MadHeader.MAD_SIZE];
            CmMad.encode(header, ((DecodedCmMad.Decoded) decoded).message(), again, 0);
            assertThat(again).isEqualTo(Arrays.copyOfRange(buf, SLACK, SLACK + MadHeader.MAD_SIZE));
        });
    }

    @ParameterizedTest(name = "{0}: reserved bits go out as zero even over a dirty buffer")
    @EnumSource(value = CmAttribute.class, names = {"CLASS_PORT_INFO", "LAP", "APR"}, mode = EnumSource.Mode.EXCLUDE)
    void encodeOverwritesTheWholeDataArea(CmAttribute attribute) {
        qt().withExamples(100).forAll(CmGenerators.messages(attribute)).checkAssert(message -> {
            byte[] clean = new byte[MadHeader.MAD_SIZE];
            byte[] dirty = new byte[MadHeader.MAD_SIZE];
            Arrays.fill(dirty, (byte) 0xFF);
            MadHeader header = MadHeader.cm(1, attribute);
            CmMad.encode(header, message, clean, 0);
            CmMad.encode(header, message, dirty, 0);
            assertThat(dirty).isEqualTo(clean);
        });
    }

    @Test
    @DisplayName("IBTA 13.4.3: every MAD header field survives encode → decode; reserved bytes 18-19 are written as zero")
    void madHeaderRoundTrips() {
        qt().withExamples(2_000).forAll(CmGenerators.headers()).checkAssert(header -> {
            byte[] buf = new byte[MadHeader.HEADER_LENGTH];
            Arrays.fill(buf, (byte) 0xA5);
            header.encode(buf, 0);
            assertThat(MadHeader.decode(buf, 0)).isEqualTo(header);
            assertThat(buf[18]).isZero();
            assertThat(buf[19]).isZero();
        });
    }

    @Test
    @DisplayName("IBTA 13.4.3: the CM header is base version 1, class 0x07, class version 2, method Send")
    void cmHeaderLayout() {
        byte[] buf = new byte[MadHeader.HEADER_LENGTH];
        MadHeader.cm(0x00000002d9bda4abL, CmAttribute.REQ).encode(buf, 0);
        assertThat(buf).containsExactly(1, 7, 2, 3, 0, 0, 0, 0, 0, 0, 0, 2, 0xd9, 0xbd, 0xa4, 0xab, 0, 0x10, 0, 0,
                0, 0, 0, 0);
    }

    @Test
    @DisplayName("Short private data is zero-padded to its field, as the receiver reads it, so the record equals its decoded form")
    void shortPrivateDataIsPadded() {
        byte[] buf = new byte[MadHeader.MAD_SIZE];
        Arrays.fill(buf, (byte) 0x77);
        ReadyToUse sent = new ReadyToUse(1, 2, new byte[] {1, 2, 3});
        CmMad.encode(MadHeader.cm(9, CmAttribute.RTU), sent, buf, 0);
        ReadyToUse rtu = (ReadyToUse) ((DecodedCmMad.Decoded) CmMad.decode(buf, 0, buf.length)).message();
        byte[] expected = new byte[ReadyToUse.PRIVATE_DATA_LENGTH];
        expected[0] = 1;
        expected[1] = 2;
        expected[2] = 3;
        assertThat(rtu.privateData()).isEqualTo(expected);
        assertThat(sent.privateData()).isEqualTo(expected);
        assertThat(rtu).isEqualTo(sent);
    }

    @Test
    @DisplayName("A value wider than its field, or private data longer than the message allows, is refused")
    void valuesWiderThanTheirFieldAreRefused() {
        Random r = new Random(7);
        CmPath path = CmGenerators.path(r);
        assertThatThrownBy(() -> new ConnectRequest(1, 2, 3, 4, 0x1000000, 0, 0, 0, 0, 0, 0, false, 0, 0, 0, 0, 0,
                false, 0, 0, false, 0, path, path, new byte[0])).hasMessageContaining("local QPN");
        assertThatThrownBy(() -> new ConnectRequest(1, 2, 3, 4, 5, 0, 0, 0, 0, 32, 0, false, 0, 0, 0, 0, 0,
                false, 0, 0, false, 0, path, path, new byte[0])).hasMessageContaining("remote CM response timeout");
        assertThatThrownBy(() -> new ReadyToUse(1, 2, new byte[ReadyToUse.PRIVATE_DATA_LENGTH + 1]))
                .hasMessageContaining("224");
        assertThatThrownBy(() -> new ConnectReject(1, 2, 4, RejectReason.TIMEOUT, new byte[0]))
                .hasMessageContaining("message rejected");
        assertThatThrownBy(() -> new CmPath(0, 0, new byte[4], new byte[16], 0, 0, 0, 0, 0, false, 0))
                .hasMessageContaining("local GID");
    }

    @Test
    @DisplayName("A header that names another attribute than the message's is a programming error")
    void headerMustNameTheMessagesAttribute() {
        assertThatThrownBy(() -> CmMad.encode(MadHeader.cm(1, CmAttribute.REP), new ReadyToUse(1, 2, new byte[0]),
                new byte[MadHeader.MAD_SIZE], 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("RTU");
    }

    @Test
    @DisplayName("IBTA 13.4.2: a payload that is not 256 bytes, or lies outside the buffer, is WRONG_LENGTH")
    void wrongLengthsAreTyped() {
        qt().withExamples(500).forAll(integers().between(-4, 600), integers().between(-4, 600)).checkAssert((off, len) -> {
            byte[] buf = new byte[600];
            DecodedCmMad decoded = CmMad.decode(buf, off, len);
            boolean fits = len == MadHeader.MAD_SIZE && off >= 0 && off + len <= buf.length;
            assertThat(decoded instanceof DecodedCmMad.NotCm notCm && notCm.reason() == DecodedCmMad.Reason.WRONG_LENGTH)
                    .as("off %d len %d: %s", off, len, decoded).isEqualTo(!fits);
        });
        byte[] room = new byte[300]; // 256 bytes fit at 0..44 only
        CmMad.encode(MadHeader.cm(1, CmAttribute.RTU), new ReadyToUse(1, 2, new byte[0]), room, 44);
        assertThat(CmMad.decode(room, 44, MadHeader.MAD_SIZE)).isInstanceOf(DecodedCmMad.Decoded.class);
        assertThat(CmMad.decode(room, 45, MadHeader.MAD_SIZE)).as("256 bytes at 45 of 300")
                .isEqualTo(new DecodedCmMad.NotCm(DecodedCmMad.Reason.WRONG_LENGTH, "payload of 256 bytes at 45 of 300"));
        assertThat(CmMad.decode(null, 0, MadHeader.MAD_SIZE))
                .isEqualTo(new DecodedCmMad.NotCm(DecodedCmMad.Reason.WRONG_LENGTH, "payload of 256 bytes at 0 of no buffer"));
    }

    @Test
    @DisplayName("A MAD of another version, class, method or attribute gets its typed reason")
    void headersTheCmDoesNotTakeAreTyped() {
        assertThat(reason(new MadHeader(2, 7, 2, 3, 0, 0, 1, 0x10, 0))).isEqualTo(DecodedCmMad.Reason.UNSUPPORTED_BASE_VERSION);
        assertThat(reason(new MadHeader(1, 0x03, 2, 3, 0, 0, 1, 0x10, 0))).isEqualTo(DecodedCmMad.Reason.NOT_CM_CLASS);
        assertThat(reason(new MadHeader(1, 7, 1, 3, 0, 0, 1, 0x10, 0))).isEqualTo(DecodedCmMad.Reason.UNSUPPORTED_CLASS_VERSION);
        assertThat(reason(new MadHeader(1, 7, 2, 0x01, 0, 0, 1, 0x10, 0))).isEqualTo(DecodedCmMad.Reason.UNSUPPORTED_METHOD);
        assertThat(reason(new MadHeader(1, 7, 2, 3, 0, 0, 1, 0x0020, 0))).isEqualTo(DecodedCmMad.Reason.UNKNOWN_ATTRIBUTE);
        assertThat(reason(new MadHeader(1, 7, 2, 3, 0, 0, 1, 0x0019, 0))).isEqualTo(DecodedCmMad.Reason.UNSUPPORTED_ATTRIBUTE);
        assertThat(reason(new MadHeader(1, 7, 2, 3, 0, 0, 1, 0x0001, 0))).isEqualTo(DecodedCmMad.Reason.UNSUPPORTED_ATTRIBUTE);
    }

    @Test
    @DisplayName("Random 256 bytes never make decode throw: a message or a typed reason")
    void randomBytesNeverThrow() {
        qt().withExamples(2_000).forAll(longs().all()).checkAssert(seed -> {
            Random r = new Random(seed);
            byte[] buf = CmGenerators.bytes(r, MadHeader.MAD_SIZE);
            if (r.nextBoolean()) { // a plausible CM header over random data, so the messages' decoders run too
                MadHeader.cm(r.nextLong(), CmAttribute.values()[r.nextInt(CmAttribute.values().length)]).encode(buf, 0);
            }
            assertThat(CmMad.decode(buf, 0, buf.length)).isNotNull();
        });
    }

    private static DecodedCmMad.Reason reason(MadHeader header) {
        byte[] buf = new byte[MadHeader.MAD_SIZE];
        header.encode(buf, 0);
        return ((DecodedCmMad.NotCm) CmMad.decode(buf, 0, buf.length)).reason();
    }
}
