package org.roce4j.wire.mad;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The bit-field table entry reads and writes the bits IBTA's Byte[Bit] notation names, and only those. */
class FieldTest {

    @Test
    @DisplayName("IBA_FIELD_BLOC: bit 0 is the most significant bit of the byte; fields run MSB first")
    void byteBitNotationIsMsbFirst() {
        byte[] buf = new byte[4];
        Field.bits(1, 5, 2).put(buf, 0, 0b11);       // like CM_REQ_TRANSPORT_SERVICE_TYPE (43, 5, 2)
        assertThat(buf).containsExactly(0, 0b0000_0110, 0, 0);
        Field.at(2, 5).put(buf, 0, 0b10100);          // like CM_REQ_LOCAL_CM_RESPONSE_TIMEOUT (47, 5)
        assertThat(buf[2]).isEqualTo((byte) 0b1010_0000);
        Field.bits(0, 2, 6).put(buf, 0, 0x3F);        // like CM_REQ_PRIMARY_PACKET_RATE (91, 2, 6)
        assertThat(buf[0]).isEqualTo((byte) 0x3F);
    }

    @Test
    @DisplayName("A 20-bit field across three bytes: the flow label at 88 leaves byte 90's low nibble alone")
    void fieldsCrossByteBoundaries() {
        byte[] buf = {0, 0, 0x0F, 0};
        Field.at(0, 20).put(buf, 0, 0xa7c93);
        assertThat(buf).containsExactly(0xa7, 0xc9, 0x3F, 0);
        assertThat(Field.at(0, 20).get(buf, 0)).isEqualTo(0xa7c93);
    }

    @Test
    @DisplayName("put then get gives the value back, and no bit outside the field changes")
    void putChangesOnlyTheFieldsBits() {
        qt().withExamples(5_000).forAll(longs().all()).checkAssert(seed -> {
            Random r = new Random(seed);
            int width = 1 + r.nextInt(64);
            Field field = Field.bits(r.nextInt(4), r.nextInt(8), width);
            byte[] before = CmGenerators.bytes(r, 16);
            byte[] after = before.clone();
            long value = width == 64 ? r.nextLong() : r.nextLong() >>> (64 - width);

            field.put(after, 2, value);

            assertThat(field.get(after, 2)).isEqualTo(value);
            int first = (2 + field.byteOffset()) * 8 + field.bitOffset();
            for (int bit = 0; bit < 128; bit++) {
                if (bit < first || bit >= first + width) {
                    assertThat(bitAt(after, bit)).as("bit %d outside %s", bit, field).isEqualTo(bitAt(before, bit));
                }
            }
        });
    }

    @Test
    @DisplayName("IBA_FIELD_MLOC: a field of n whole bytes is 8n bits from the top of its first byte")
    void wholeByteFieldsAreEightBitsAByte() {
        Field gid = Field.bytes(3, 16);
        assertThat(gid).isEqualTo(new Field(3, 0, 128));
        assertThat(gid.length()).isEqualTo(16);
    }

    @Test
    @DisplayName("putBytes: a value shorter than its field is copied to the field's start and the rest of the field zeroed, nothing after it")
    void putBytesZeroFillsTheRestOfTheField() {
        byte[] buf = new byte[8];
        java.util.Arrays.fill(buf, (byte) 0xEE);
        Field.bytes(1, 4).putBytes(buf, 1, new byte[] {1, 2});
        assertThat(buf).containsExactly(0xEE, 0xEE, 1, 2, 0, 0, 0xEE, 0xEE);
    }

    @Test
    @DisplayName("check: a 64-bit field takes every long, a narrower one refuses negative values and bits above its width")
    void checkRefusesOnlyValuesTheFieldCannotCarry() {
        Field.at(0, 64).check("service ID", -1L);
        Field.at(0, 64).check("service ID", Long.MIN_VALUE);
        Field.at(0, 24).check("QPN", 0xFFFFFF);
        Field.at(0, 24).check("QPN", 0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Field.at(0, 24).check("QPN", 0x1000000))
                .hasMessageContaining("QPN 16777216 does not fit in 24 bits");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Field.at(0, 63).check("x", -1L))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static int bitAt(byte[] buf, int bit) {
        return buf[bit / 8] >>> (7 - bit % 8) & 1;
    }
}
