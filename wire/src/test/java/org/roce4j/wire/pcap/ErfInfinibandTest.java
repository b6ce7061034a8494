package org.roce4j.wire.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** ERF records of InfiniBand packets, laid out as ibdump writes them (ibdump.h erf_header_t) and Wireshark's erf.c reads them. */
class ErfInfinibandTest {
    private static final byte[] PACKET = HexFormat.of().parseHex("0002000200060001" + "0400ffff0000001200000003" + "00000000" + "beef");

    @Test
    void theHeaderIsTimestampTypeFlagsRlenLctrWlen() {
        long nanos = 1_767_225_600_500_000_000L; // 2026-01-01T00:00:00.5Z
        byte[] record = ErfInfiniband.wrap(nanos, PACKET);
        assertThat(HexFormat.of().formatHex(record, 0, 16)).isEqualTo(
                "00000080" + "00b95569"   // little-endian: fraction 0x80000000 (half a second), seconds 0x6955b900
                + "15" + "04"               // type 21 (InfiniBand), flags: varying record length
                + "002a" + "0000" + "001a"); // rlen 16 + 26, lctr 0, wlen 26 (big-endian)
        assertThat(record).hasSize(16 + PACKET.length);
    }

    @Test
    void unwrapGivesThePacketBack() {
        assertThat(ErfInfiniband.unwrap(ErfInfiniband.wrap(123_456_789L, PACKET))).hasValue(PACKET);
    }

    @Test
    void theFractionReadsBackToTheSameNanosecond() {
        for (long nanos : new long[] {1, 999_999_999L, 123_456_789L}) {
            byte[] record = ErfInfiniband.wrap(nanos, PACKET);
            long fraction = java.nio.ByteBuffer.wrap(record).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0) & 0xFFFFFFFFL;
            assertThat(fraction * 1_000_000_000L >>> 32).as("%d ns", nanos).isEqualTo(nanos);
        }
    }

    @Test
    void otherRecordsAreNotInfiniband() {
        byte[] ethernet = ErfInfiniband.wrap(0, PACKET);
        ethernet[8] = 2; // ERF_TYPE_ETH
        assertThat(ErfInfiniband.unwrap(ethernet)).isEmpty();
        byte[] extended = ErfInfiniband.wrap(0, PACKET);
        extended[8] |= (byte) 0x80; // an extension header follows
        assertThat(ErfInfiniband.unwrap(extended)).isEmpty();
        assertThat(ErfInfiniband.unwrap(new byte[15])).isEmpty();
        byte[] link = ErfInfiniband.wrap(0, PACKET);
        link[8] = 25; // ERF_TYPE_INFINIBAND_LINK
        assertThat(ErfInfiniband.unwrap(link)).hasValue(PACKET);
    }

    @Test
    void aShortRecordGivesWhatItHolds() {
        byte[] record = ErfInfiniband.wrap(0, PACKET);
        assertThat(ErfInfiniband.unwrap(java.util.Arrays.copyOf(record, 20))).hasValueSatisfying(p -> assertThat(p).hasSize(4));
        byte[] padded = java.util.Arrays.copyOf(record, record.length + 6); // rlen beyond wlen: padding
        assertThat(ErfInfiniband.unwrap(padded)).hasValue(PACKET);
    }

    @Test
    void aPacketTooLongForRlenIsRefused() {
        assertThatThrownBy(() -> ErfInfiniband.wrap(0, new byte[0xFFFF])).isInstanceOf(IllegalArgumentException.class);
        assertThat(ErfInfiniband.wrap(0, new byte[0xFFFF - 16])).hasSize(0xFFFF);
    }
}
