package org.roce4j.wire.mad;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The CM records compare and hash by content, byte arrays included, and print their arrays in hex:
 * what the round-trip tests' {@code isEqualTo} relies on, checked with records that differ.
 */
class RecordValuesTest {

    @ParameterizedTest(name = "{0}: equal by content, unequal when a field differs, never equal to null or another type")
    @EnumSource(value = CmAttribute.class, names = {"CLASS_PORT_INFO", "LAP", "APR"}, mode = EnumSource.Mode.EXCLUDE)
    void messagesCompareByContent(CmAttribute attribute) {
        CmMessage one = CmGenerators.message(attribute, new Random(1));
        CmMessage same = CmGenerators.message(attribute, new Random(1));
        CmMessage other = CmGenerators.message(attribute, new Random(2));

        assertThat(one).isNotSameAs(same).isEqualTo(same).hasSameHashCodeAs(same);
        assertThat(one.toString()).isEqualTo(same.toString());
        assertThat(one).isNotEqualTo(other);
        assertThat(one.hashCode()).isNotEqualTo(other.hashCode());
        assertThat(one.toString()).isNotEqualTo(other.toString()).startsWith(one.getClass().getSimpleName() + "[");
        assertThat(one).isNotEqualTo(null).isNotEqualTo(CmGenerators.message(
                attribute == CmAttribute.RTU ? CmAttribute.DREP : CmAttribute.RTU, new Random(1)));
    }

    @Test
    @DisplayName("Private data that differs in one byte makes the records unequal (arrays by content, not identity)")
    void oneByteOfPrivateDataMatters() {
        byte[] data = new byte[ReadyToUse.PRIVATE_DATA_LENGTH];
        byte[] changed = data.clone();
        changed[223] = 1;
        assertThat(new ReadyToUse(1, 2, data)).isEqualTo(new ReadyToUse(1, 2, data.clone()))
                .isNotEqualTo(new ReadyToUse(1, 2, changed));
        CmPath path = CmGenerators.path(new Random(3));
        assertThat(path).isEqualTo(CmGenerators.path(new Random(3))).isNotEqualTo(CmGenerators.path(new Random(4)))
                .hasSameHashCodeAs(CmGenerators.path(new Random(3)));
        assertThat(path.hashCode()).isNotEqualTo(CmGenerators.path(new Random(4)).hashCode());
    }

    @Test
    @DisplayName("Text: numbers above 9 also in hex, longs in hex, arrays as hex of their first 16 bytes then …(length)")
    void textShowsFieldsInHex() {
        assertThat(new DisconnectRequest(9, 10, 0x2A, new byte[] {1, 2, 3}).toString()).isEqualTo(
                "DisconnectRequest[localCommId=9, remoteCommId=10/0xa, remoteQpnEecn=42/0x2a, "
                        + "privateData=01020300000000000000000000000000…(220)]");
        assertThat(new SidrRequest(0, 0xFFFF, 0x0000_0001_0611_2233L, new byte[0]).toString()).isEqualTo(
                "SidrRequest[requestId=0, pkey=65535/0xffff, serviceId=0x106112233, "
                        + "privateData=00000000000000000000000000000000…(216)]");
        byte[] gid = new byte[16];
        gid[0] = (byte) 0xFE;
        gid[1] = (byte) 0x80;
        gid[15] = 1;
        CmPath path = new CmPath(0xFFFF, 0xFFFF, gid, gid, 0, 0, 0, 0, 0, true, 0);
        assertThat(path.toString()).as("a 16-byte array is shown whole, with no length after it")
                .contains("localGid=fe800000000000000000000000000001, remoteGid=fe800000000000000000000000000001, ")
                .contains("=true");
    }
}
