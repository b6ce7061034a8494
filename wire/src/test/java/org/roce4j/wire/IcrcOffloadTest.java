package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * ICRC offload ({@link PacketWriter#offloadIcrc}, {@link PacketInfo#parseTrustedFrame}): a frame whose
 * sender left the ICRC out is taken only by a receiver told it is trusted, never by the ordinary
 * parse; an RC FLUSH keeps its ICRC either way, because rxe's and IBTA's differ for it.
 */
class IcrcOffloadTest {
    private static final byte[] SOURCE = {10, 0, 0, 1};
    private static final byte[] DESTINATION = {10, 0, 0, 2};

    private static int write(PacketWriter writer, byte[] buffer, Opcode opcode) {
        writer.ethernet(buffer, 0, 0x02_00_00_00_00_0bL, 0x02_00_00_00_00_0aL)
                .ipv4(0, 7, true, 64, SOURCE, DESTINATION).udp(0xC000).bth(opcode, 0x11, 5);
        if (opcode == Opcode.RC_FLUSH) {
            writer.feth(1, 1).reth(0x1000, 0x238, 0);
            return writer.finish(0);
        }
        writer.reth(0x1000, 0x238, 64);
        for (int i = 0; i < 64; i++) {
            buffer[writer.payloadOffset() + i] = (byte) i;
        }
        return writer.finish(64);
    }

    @Test
    void anOffloadedFrameCarriesAZeroIcrcThatOnlyTheTrustedParseTakes() {
        PacketWriter writer = new PacketWriter();
        writer.offloadIcrc(true);
        byte[] frame = new byte[256];
        java.util.Arrays.fill(frame, (byte) 0x5a); // a reused buffer: the ICRC's place holds an old frame's bytes
        int length = write(writer, frame, Opcode.RC_RDMA_WRITE_ONLY);
        PacketInfo packet = new PacketInfo();

        assertThat(packet.parseFrame(frame, 0, length)).isFalse();
        assertThat(packet.dropReason()).isEqualTo(DropReason.BAD_ICRC);
        assertThat(packet.parseTrustedFrame(frame, 0, length)).isTrue();
        assertThat(packet.icrc()).isZero();
        assertThat(packet.icrcStatus()).isEqualTo(IcrcStatus.NOT_CHECKED);
        assertThat(packet.opcode()).isEqualTo(Opcode.RC_RDMA_WRITE_ONLY);
        assertThat(packet.payloadLength()).isEqualTo(64);
    }

    @Test
    void offloadChangesNothingButTheIcrcAndTheOrdinaryWriteIsUnchanged() {
        byte[] offloaded = new byte[256];
        byte[] computed = new byte[256];
        PacketWriter writer = new PacketWriter();
        writer.offloadIcrc(true);
        int length = write(writer, offloaded, Opcode.RC_RDMA_WRITE_ONLY);
        writer.offloadIcrc(false);
        assertThat(write(writer, computed, Opcode.RC_RDMA_WRITE_ONLY)).isEqualTo(length);

        PacketInfo packet = new PacketInfo();
        assertThat(packet.parseFrame(computed, 0, length)).isTrue();
        assertThat(packet.icrcStatus()).isEqualTo(IcrcStatus.VALID);
        int icrcOffset = packet.icrcOffset();
        assertThat(java.util.Arrays.copyOf(offloaded, icrcOffset)).isEqualTo(java.util.Arrays.copyOf(computed, icrcOffset));
    }

    @Test
    void anRcFlushKeepsItsIcrcWhenOffloadedAndTheTrustedParseStillChecksIt() {
        PacketWriter writer = new PacketWriter();
        writer.offloadIcrc(true);
        byte[] frame = new byte[256];
        int length = write(writer, frame, Opcode.RC_FLUSH);
        PacketInfo packet = new PacketInfo();
        assertThat(packet.parseFrame(frame, 0, length)).isTrue();

        frame[length - 1] ^= 1;
        assertThat(packet.parseTrustedFrame(frame, 0, length)).isFalse();
        assertThat(packet.dropReason()).isEqualTo(DropReason.BAD_ICRC);
    }

    @Test
    void theTrustedParseStillChecksEveryOtherLayer() {
        PacketWriter writer = new PacketWriter();
        writer.offloadIcrc(true);
        byte[] frame = new byte[256];
        int length = write(writer, frame, Opcode.RC_RDMA_WRITE_ONLY);
        frame[14 + 9] = 6; // IPv4 protocol: TCP
        PacketInfo packet = new PacketInfo();
        assertThat(packet.parseTrustedFrame(frame, 0, length)).isFalse();
        assertThat(packet.dropReason()).isNotEqualTo(DropReason.BAD_ICRC);
    }
}
