package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.roce4j.wire.WireGenerators.header;

import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class HeaderRoundTripTest {

    @ParameterizedTest(name = "{0}: decode(encode(h)) == h for random field values")
    @EnumSource(value = HeaderType.class, names = "BTH", mode = EnumSource.Mode.EXCLUDE)
    void extensionHeaderRoundTrips(HeaderType type) {
        qt().withExamples(2_000).forAll(header(type)).checkAssert(header -> {
            byte[] bytes = new byte[type.length() + 8];
            header.encode(bytes, 3);
            assertThat(ExtensionHeader.decode(type, bytes, 3)).isEqualTo(header);
            // Nothing outside the header's bytes is touched.
            assertThat(Arrays.copyOfRange(bytes, 0, 3)).containsOnly(0);
            assertThat(Arrays.copyOfRange(bytes, 3 + type.length(), bytes.length)).containsOnly(0);
        });
    }

    @Test
    void bthRoundTripsEveryFieldForEveryOpcode() {
        qt().withExamples(5_000).forAll(WireGenerators.opcodes().flatMap(WireGenerators::bth),
                org.quicktheories.generators.SourceDSL.integers().between(0, 3)).checkAssert((bth, pad) -> {
            Bth padded = bth.withPadCount(pad);
            byte[] bytes = new byte[12];
            padded.encode(bytes, 0);
            assertThat(Bth.decode(bytes, 0)).isEqualTo(padded);
        });
    }

    @Test
    void bthLayoutMatchesIbtaFigure() {
        Bth bth = new Bth(Opcode.RC_RDMA_WRITE_FIRST, true, false, 3, 0, 0x1234, true, true, 0xABCDEF, true, 0x123456);
        byte[] bytes = new byte[12];
        bth.encode(bytes, 0);
        assertThat(bytes).containsExactly(0x06, 0xB0, 0x12, 0x34, 0xC0, 0xAB, 0xCD, 0xEF, 0x80, 0x12, 0x34, 0x56);
    }

    @Test
    void rethLayoutIsVaThenRkeyThenLength() {
        byte[] bytes = new byte[16];
        new Reth(0x0102030405060708L, 0x0A0B0C0D, 0x00001000).encode(bytes, 0);
        assertThat(bytes).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 0x0A, 0x0B, 0x0C, 0x0D, 0, 0, 0x10, 0);
    }

    @Test
    void dethLayoutIsQkeyReservedSourceQp() {
        byte[] bytes = new byte[8];
        new Deth(0x11111111, 0x000123).encode(bytes, 0);
        assertThat(bytes).containsExactly(0x11, 0x11, 0x11, 0x11, 0, 0, 0x01, 0x23);
    }

    @Test
    void fethPutsSelectivityInBits5To4AndPlacementInBits3To0() {
        byte[] bytes = new byte[4];
        new Feth(1, 2).encode(bytes, 0);
        assertThat(bytes).containsExactly(0, 0, 0, 0x12);
    }
}
