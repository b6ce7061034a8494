package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where an Ethernet frame's payload starts and what it is: after one 802.1Q tag if there is one. */
class EthernetHeaderTest {

    private static byte[] frame(int length, int... typeWords) {
        byte[] frame = new byte[length];
        for (int i = 0; i < typeWords.length; i++) {
            frame[12 + 4 * i] = (byte) (typeWords[i] >>> 8);
            frame[13 + 4 * i] = (byte) typeWords[i];
        }
        return frame;
    }

    @Test
    void anUntaggedFrameSaysItsEtherTypeFromFourteenBytesOn() {
        assertThat(EthernetHeader.etherTypeOf(frame(14, 0x0800))).isEqualTo(0x0800);
        assertThat(EthernetHeader.etherTypeOf(frame(13))).isEqualTo(-1);
    }

    @Test
    void aTaggedFrameSaysTheEtherTypeBehindItsTagFromEighteenBytesOn() {
        assertThat(EthernetHeader.etherTypeOf(frame(18, EthernetHeader.ETHERTYPE_VLAN, 0x86DD))).isEqualTo(0x86DD);
        assertThat(EthernetHeader.etherTypeOf(frame(17, EthernetHeader.ETHERTYPE_VLAN))).isEqualTo(-1);
    }

    @Test
    void thePayloadStartsAfterTheHeaderAndItsTagAtAnyOffset() {
        byte[] untagged = new byte[40];
        untagged[5 + 12] = 0x08;
        assertThat(EthernetHeader.payloadOffset(untagged, 5)).isEqualTo(19);
        byte[] tagged = new byte[40];
        tagged[5 + 12] = (byte) 0x81;
        assertThat(EthernetHeader.payloadOffset(tagged, 5)).isEqualTo(23);
    }
}
