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
    private static final byte[] IPV6_SOURCE = {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

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

    /** A 64-byte WRITE ONLY at {@code offset}, over IPv4 or IPv6, tagged or not; its payload written before or after. */
    private static int writeOnly(PacketWriter writer, byte[] buffer, int offset, boolean ipv6, int vlanTci,
                                 boolean payloadAfterwards) {
        writer.ethernet(buffer, offset, 0x02_00_00_00_00_0bL, 0x02_00_00_00_00_0aL, vlanTci);
        if (ipv6) {
            writer.ipv6(0, 0x12345, 64, IPV6_SOURCE, new byte[16]);
        } else {
            writer.ipv4(0, 7, true, 64, SOURCE, DESTINATION);
        }
        writer.udp(0xC000).bth(Opcode.RC_RDMA_WRITE_ONLY, 0x11, 5).reth(0x1000, 0x238, 64);
        int payload = writer.payloadOffset();
        if (!payloadAfterwards) {
            fillPayload(buffer, payload);
        }
        int length = writer.finish(64);
        if (payloadAfterwards) {
            fillPayload(buffer, payload); // as a frame sent by reference gets its payload on the way
        }
        return length;
    }

    private static void fillPayload(byte[] buffer, int at) {
        for (int i = 0; i < 64; i++) {
            buffer[at + i] = (byte) (i * 7 + 1);
        }
    }

    @Test
    void anOffloadedFrameFinishedLaterIsTheFrameBuiltWithItsIcrcOverEveryLayout() {
        for (boolean ipv6 : new boolean[] {false, true}) {
            for (int vlanTci : new int[] {-1, 0x2005}) {
                for (boolean payloadAfterwards : new boolean[] {false, true}) {
                    byte[] offloaded = new byte[300];
                    byte[] computed = new byte[300];
                    PacketWriter writer = new PacketWriter();
                    writer.offloadIcrc(true);
                    int length = writeOnly(writer, offloaded, 10, ipv6, vlanTci, payloadAfterwards);
                    writer.offloadIcrc(false);
                    writeOnly(writer, computed, 10, ipv6, vlanTci, false);

                    PacketWriter.finishOffloaded(offloaded, 10, length, new IcrcCalculator());

                    assertThat(offloaded).as("IPv6 %s, VLAN %s, payload afterwards %s", ipv6, vlanTci, payloadAfterwards)
                            .isEqualTo(computed);
                }
            }
        }
    }

    @Test
    void finishingAnOffloadedRcFlushLeavesTheIcrcItCarriesAsItsSenderComputedIt() {
        PacketWriter writer = new PacketWriter();
        writer.flushIcrcAsRxe(true);
        writer.offloadIcrc(true);
        byte[] frame = new byte[256];
        int length = write(writer, frame, Opcode.RC_FLUSH);
        byte[] sent = frame.clone();

        PacketWriter.finishOffloaded(frame, 0, length, new IcrcCalculator()); // IBTA's calculator, not rxe's

        assertThat(frame).isEqualTo(sent);
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
