package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.api.Test;

/**
 * {@link PacketWriter#nextPacket}: a MIDDLE packet rewritten in place is byte for byte the next MIDDLE (or plain
 * LAST) packet of its message as the writer lays it out — the next PSN (wrapping at 2^24), the next IPv4
 * Identification with its checksum, AckReq as asked — tagged or not.
 */
class NextPacketTest {
    private static final byte[] SOURCE = {10, 0, 0, 1};
    private static final byte[] DESTINATION = {10, 0, 0, 2};
    private static final int PAYLOAD = 256;

    /** A MIDDLE packet as the writer builds it: the payload zero, so that only the headers differ. */
    private static byte[] middle(Opcode opcode, int psn, int identification, boolean ackReq, int vlanTci,
                                 boolean dontFragment) {
        return middle(opcode, psn, identification, ackReq, vlanTci, dontFragment, 0x02);
    }

    private static byte[] middle(Opcode opcode, int psn, int identification, boolean ackReq, int vlanTci,
                                 boolean dontFragment, int tos) {
        byte[] frame = new byte[400];
        PacketWriter writer = new PacketWriter();
        writer.offloadIcrc(true);
        int length = writer.ethernet(frame, 0, 0x0200_0000_0002L, 0x0200_0000_0001L, vlanTci)
                .ipv4(tos, identification, dontFragment, 64, SOURCE, DESTINATION).udp(0xC123)
                .bth(opcode, 0x00_0123, psn).solicitedEvent(false).ackReq(ackReq).finish(PAYLOAD);
        return java.util.Arrays.copyOf(frame, length);
    }

    @Test
    void theNextPacketHasTheNextPsnAndIdentificationAndNoAckReq() {
        byte[] frame = middle(Opcode.RC_RDMA_WRITE_MIDDLE, 0x00_1000, 7, false, -1, true);
        PacketWriter.nextPacket(frame, 0, 1, false, false);
        assertThat(frame).isEqualTo(middle(Opcode.RC_RDMA_WRITE_MIDDLE, 0x00_1001, 8, false, -1, true));
        PacketWriter.nextPacket(frame, 0, 1, true, false);
        assertThat(frame).isEqualTo(middle(Opcode.RC_RDMA_WRITE_MIDDLE, 0x00_1002, 9, true, -1, true));
    }

    @Test
    void theLastPacketOfAWriteOrASendIsItsPlainLast() {
        byte[] write = middle(Opcode.RC_RDMA_WRITE_MIDDLE, 77, 3, false, -1, true);
        PacketWriter.nextPacket(write, 0, 1, true, true);
        assertThat(write).isEqualTo(middle(Opcode.RC_RDMA_WRITE_LAST, 78, 4, true, -1, true));
        byte[] send = middle(Opcode.UC_SEND_MIDDLE, 5, 3, false, -1, true);
        PacketWriter.nextPacket(send, 0, 1, false, true);
        assertThat(send).isEqualTo(middle(Opcode.UC_SEND_LAST, 6, 4, false, -1, true));
    }

    @Test
    void thePsnAndTheIdentificationWrapAndAckReqIsClearedAgain() {
        byte[] frame = middle(Opcode.UC_SEND_MIDDLE, Psn.MASK, 0xFFFF, true, -1, false);
        PacketWriter.nextPacket(frame, 0, 1, false, false);
        assertThat(frame).isEqualTo(middle(Opcode.UC_SEND_MIDDLE, 0, 0, false, -1, false));
        assertThat(Ipv4Header.checksum(frame, EthernetHeader.LENGTH)).as("the header sums to 0").isZero();
    }

    /** The checksum is updated, not summed again (RFC 1624): for any header it is what a new sum gives. */
    @Test
    void anyIdentificationAndPsnGiveTheFrameTheWriterBuilds() {
        qt().withExamples(2_000).forAll(integers().between(0, 0xFFFF), integers().between(0, Psn.MASK),
                integers().between(0, 0xFF), booleans().all()).checkAssert((identification, psn, tos, dontFragment) -> {
                    byte[] frame = middle(Opcode.RC_RDMA_WRITE_MIDDLE, psn, identification, false, -1, dontFragment, tos);
                    PacketWriter.nextPacket(frame, 0, 1, false, false);
                    assertThat(frame).isEqualTo(middle(Opcode.RC_RDMA_WRITE_MIDDLE, Psn.next(psn),
                            (identification + 1) & 0xFFFF, false, -1, dontFragment, tos));
                });
    }

    /** One header in tens of thousands whose sum carries out of the first fold: RFC 1624's sum folded twice. */
    @Test
    void aSumThatCarriesTwiceIsFoldedTwice() {
        byte[] frame = middle(Opcode.RC_RDMA_WRITE_MIDDLE, 1, 9663, false, -1, true, 0);
        PacketWriter.nextPacket(frame, 0, 1, false, false);
        assertThat(frame).isEqualTo(middle(Opcode.RC_RDMA_WRITE_MIDDLE, 2, 9664, false, -1, true, 0));
    }

    @Test
    void aSenderThatNumbersEveryPacketZeroKeepsZeroAndATaggedFrameIsFound() {
        byte[] frame = middle(Opcode.RC_SEND_MIDDLE, 41, 0, false, 0x0064, true);
        PacketWriter.nextPacket(frame, 0, 0, false, false);
        assertThat(frame).isEqualTo(middle(Opcode.RC_SEND_MIDDLE, 42, 0, false, 0x0064, true));
    }

    @Test
    void onlyAnIpv4MiddlePacketIsRewritten() {
        byte[] first = middle(Opcode.RC_SEND_FIRST, 1, 1, false, -1, true);
        byte[] unchanged = first.clone();
        assertThatIllegalArgumentException().isThrownBy(() -> PacketWriter.nextPacket(first, 0, 1, false, false))
                .withMessageContaining("not a MIDDLE packet: RC_SEND_FIRST");
        assertThat(first).isEqualTo(unchanged);

        byte[] v6 = new byte[400];
        new PacketWriter().ethernet(v6, 0, 1, 2).ipv6(0, 0, 64, new byte[16], new byte[16]).udp(9)
                .bth(Opcode.RC_SEND_MIDDLE, 1, 1).finish(PAYLOAD);
        assertThatIllegalArgumentException().isThrownBy(() -> PacketWriter.nextPacket(v6, 0, 1, false, false))
                .withMessageContaining("not an IPv4 frame");
    }
}
