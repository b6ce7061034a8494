package org.roce4j.emulator.node;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;

/** rxe_recv.c {@code check_addr} as the path answers it: a connected QP takes packets from its peer to itself only. */
class NetworkPathTest {

    /** Where the source address starts in the bytes {@link #header} builds: anywhere in a frame. */
    private static final int SOURCE_OFFSET = 5;

    private static NetworkPath path(String source, String destination) {
        return new NetworkPath(Gid.parse(source), AhAttr.of(Gid.parse(destination), 1, 1));
    }

    /** An IP header's addresses as they sit in a frame: source, then destination. */
    private static byte[] header(byte[] source, byte[] destination) {
        byte[] frame = new byte[SOURCE_OFFSET + source.length + destination.length + 3];
        System.arraycopy(source, 0, frame, SOURCE_OFFSET, source.length);
        System.arraycopy(destination, 0, frame, SOURCE_OFFSET + source.length, destination.length);
        return frame;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"::ffff:10.0.0.1 ::ffff:10.0.0.2", "fe80::1:2:3:4 fe80::5:6:7:8"})
    void aPacketFromThePeerToUsIsReturningAndOneDifferentByteAnywhereIsNot(String addresses) {
        String[] pair = addresses.split(" ");
        NetworkPath path = path(pair[0], pair[1]);
        byte[] returning = header(path.destinationIp, path.sourceIp);

        assertThat(path.isReturning(returning, SOURCE_OFFSET)).isTrue();
        assertThat(path.isReturning(header(path.sourceIp, path.destinationIp), SOURCE_OFFSET))
                .as("our own packet, going out").isFalse();
        int addressBytes = 2 * path.sourceIp.length;
        for (int i = 0; i < addressBytes; i++) {
            byte[] changed = returning.clone();
            changed[SOURCE_OFFSET + i] ^= 0x40;
            assertThat(path.isReturning(changed, SOURCE_OFFSET)).as("byte %d of the addresses changed", i).isFalse();
        }
        byte[] outside = returning.clone();
        outside[SOURCE_OFFSET - 1] ^= 0x40;
        outside[SOURCE_OFFSET + addressBytes] ^= 0x40;
        assertThat(path.isReturning(outside, SOURCE_OFFSET)).as("the bytes around the addresses are not theirs").isTrue();
    }
}
