package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AethSyndromeTest {

    @Test
    void everySyndromeByteDecodesAndReencodesToItself() {
        for (int syndrome = 0; syndrome < 256; syndrome++) {
            assertThat(AethSyndrome.decode(syndrome).encode()).as("syndrome 0x%02x", syndrome).isEqualTo(syndrome);
        }
    }

    @Test
    void typeBitsSelectAckRnrNakAndNak() {
        assertThat(AethSyndrome.decode(0x1F)).isEqualTo(new AethSyndrome.Ack(31));
        assertThat(AethSyndrome.decode(0x2C)).isEqualTo(new AethSyndrome.RnrNak(12));
        assertThat(AethSyndrome.decode(0x40)).isInstanceOf(AethSyndrome.Reserved.class);
        assertThat(AethSyndrome.decode(0x62)).isEqualTo(new AethSyndrome.Nak(NakCode.REMOTE_ACCESS_ERROR));
        assertThat(((AethSyndrome.Nak) AethSyndrome.decode(0x60)).code()).isEqualTo(NakCode.PSN_SEQUENCE_ERROR);
        assertThat(((AethSyndrome.Nak) AethSyndrome.decode(0x65)).code()).isNull();
    }

    @Test
    void rnrTimerCodesFollowIbtaTable45() {
        assertThat(AethSyndrome.RnrNak.delayNanosOf(0)).isEqualTo(655_360_000L);
        assertThat(AethSyndrome.RnrNak.delayNanosOf(1)).isEqualTo(10_000L);
        assertThat(AethSyndrome.RnrNak.delayNanosOf(12)).isEqualTo(640_000L);
        assertThat(AethSyndrome.RnrNak.delayNanosOf(14)).isEqualTo(1_280_000L);
        assertThat(AethSyndrome.RnrNak.delayNanosOf(31)).isEqualTo(491_520_000L);
    }

    @Test
    void aethFactoriesEncodeIbtaSyndromes() {
        assertThat(Aeth.ack(31, 5).syndromeByte()).isEqualTo(0x1F);
        assertThat(Aeth.rnrNak(12, 5).syndromeByte()).isEqualTo(0x2C);
        assertThat(Aeth.nak(NakCode.REMOTE_OPERATIONAL_ERROR, 5).syndromeByte()).isEqualTo(0x63);
    }

    @Test
    void syndromeBytesWithoutARecordAreTheRecordsBytes() {
        for (int value = 0; value < 32; value++) {
            assertThat(AethSyndrome.ack(value)).isEqualTo(new AethSyndrome.Ack(value).encode());
            assertThat(AethSyndrome.rnrNak(value)).isEqualTo(new AethSyndrome.RnrNak(value).encode());
            assertThat(AethSyndrome.isRnrNak(AethSyndrome.rnrNak(value))).isTrue();
            assertThat(AethSyndrome.isRnrNak(AethSyndrome.ack(value))).isFalse();
        }
        for (NakCode code : NakCode.values()) {
            assertThat(AethSyndrome.nak(code)).isEqualTo(new AethSyndrome.Nak(code).encode());
            assertThat(AethSyndrome.isRnrNak(AethSyndrome.nak(code))).isFalse();
            assertThat(AethSyndrome.isAck(AethSyndrome.nak(code))).isFalse();
        }
        assertThat(AethSyndrome.ack(AethSyndrome.Ack.INVALID_CREDIT_COUNT)).as("rxe AETH_ACK_UNLIMITED").isEqualTo(0x1F);
        assertThat(AethSyndrome.isRnrNak(0xA0)).as("reserved bit 7 set").isFalse();
    }
}
