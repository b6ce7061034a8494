package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * The RoCEv1 and InfiniBand CRCs computed a second way, from the rules rather than through
 * {@link IbCrcCalculator}: the ICRC as a plain CRC-32 over the bytes masked by hand, the VCRC by a
 * bit-at-a-time CRC-16 with polynomial 0x100B in the most-significant-bit-first form, which shares
 * no table or reflected constant with the calculator.
 */
class IbCrcKnownValuesTest {
    private static final HexFormat HEX = HexFormat.of();

    /** An RC SEND Only of 4 bytes "ABCD" from LID 1 to LID 2, VL 3, SL 5, no GRH. */
    private static final byte[] LOCAL_PACKET = HEX.parseHex(
            "3050" + "0002" + "0007" + "0001"          // LRH: VL 3, LVer 0, SL 5, LNH 2, DLID 2, PktLen 7 words, SLID 1
            + "04000000" + "c0000012" + "00000003"      // BTH: SEND Only, P_Key 0, byte 4 = FECN|BECN, QP 0x12, PSN 3
            + "41424344");                              // payload

    @Test
    void infinibandIcrcIsCrc32OverTheLrhWithVlMaskedAndBthByte4Masked() {
        byte[] masked = LOCAL_PACKET.clone();
        masked[0] |= (byte) 0xF0;          // VL
        masked[8 + 4] = (byte) 0xFF;       // BTH resv8a
        CRC32 crc = new CRC32();
        crc.update(masked);
        assertThat(new IbCrcCalculator().infinibandIcrc(withTrailer(LOCAL_PACKET), 0, LOCAL_PACKET.length))
                .isEqualTo((int) crc.getValue());
    }

    @Test
    void roceV1IcrcIsCrc32OverOnesForTheLrhThenTheMaskedGrh() {
        byte[] grhAndBth = HEX.parseHex(
                "6abcdef5" + "0014" + "1b" + "40"                      // IPVer 6, TClass 0xab, FlowLabel 0xcdef5, PayLen 20, NxtHdr 0x1b, HopLmt 64
                + "20010db8000000000000000000000001" + "20010db8000000000000000000000002"
                + "04000000" + "00000012" + "00000003" + "41424344");
        byte[] expectedInput = new byte[8 + grhAndBth.length];
        java.util.Arrays.fill(expectedInput, 0, 8, (byte) 0xFF);
        System.arraycopy(grhAndBth, 0, expectedInput, 8, grhAndBth.length);
        expectedInput[8] = (byte) 0x6F;
        expectedInput[9] = expectedInput[10] = expectedInput[11] = (byte) 0xFF; // TClass, FlowLabel
        expectedInput[8 + 7] = (byte) 0xFF;                                  // HopLmt
        expectedInput[8 + 40 + 4] = (byte) 0xFF;                             // BTH byte 4
        CRC32 crc = new CRC32();
        crc.update(expectedInput);
        assertThat(new IbCrcCalculator().roceV1Icrc(withTrailer(grhAndBth), 0, grhAndBth.length))
                .isEqualTo((int) crc.getValue());
    }

    @Test
    void vcrcIsCrc16WithPolynomial100bSeedOnesReflectedAndComplemented() {
        assertThat(IbCrcCalculator.vcrc(LOCAL_PACKET, 0, LOCAL_PACKET.length)).isEqualTo(msbFirstVcrc(LOCAL_PACKET));
        byte[] nine = "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(IbCrcCalculator.vcrc(nine, 0, nine.length)).isEqualTo(msbFirstVcrc(nine));
    }

    @Test
    void aPacketFollowedByItsVcrcLeavesTheFixedResidue() {
        // A reflected CRC stored least significant byte first: the CRC over data and CRC, before the
        // final complement, is the same constant whatever the data — the check a receiver's link layer makes.
        byte[] withVcrc = java.util.Arrays.copyOf(LOCAL_PACKET, LOCAL_PACKET.length + 2);
        IbCrcCalculator.writeVcrc(withVcrc, LOCAL_PACKET.length, IbCrcCalculator.vcrc(LOCAL_PACKET, 0, LOCAL_PACKET.length));
        byte[] other = "another packet, other bytes".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] otherWithVcrc = java.util.Arrays.copyOf(other, other.length + 2);
        IbCrcCalculator.writeVcrc(otherWithVcrc, other.length, IbCrcCalculator.vcrc(other, 0, other.length));
        assertThat(IbCrcCalculator.vcrc(withVcrc, 0, withVcrc.length))
                .isEqualTo(IbCrcCalculator.vcrc(otherWithVcrc, 0, otherWithVcrc.length));
    }

    @Test
    void aRangeThatCannotHoldTheHeadersIsACallersBug() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new IbCrcCalculator().infinibandIcrc(LOCAL_PACKET, 0, 8 + 11))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new IbCrcCalculator().infinibandIcrc(withTrailer(LOCAL_PACKET), 0, 8 + 12)).isNotZero();
    }

    /**
     * CRC-16 0x100B computed most significant bit first over bit-reversed bytes, the result
     * bit-reversed back: the same CRC as the reflected form, by another route.
     */
    private static int msbFirstVcrc(byte[] data) {
        int crc = 0xFFFF;
        for (byte value : data) {
            int reversed = Integer.reverse(value & 0xFF) >>> 24;
            crc ^= reversed << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1 ^ 0x100B) & 0xFFFF : crc << 1 & 0xFFFF;
            }
        }
        return Integer.reverse(~crc & 0xFFFF) >>> 16;
    }

    private static byte[] withTrailer(byte[] packet) {
        return java.util.Arrays.copyOf(packet, packet.length + 6);
    }
}
