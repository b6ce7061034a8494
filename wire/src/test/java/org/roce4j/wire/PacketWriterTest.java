package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.quicktheories.QuickTheory.qt;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;
import org.roce4j.wire.pcap.ReferencePcaps;

/**
 * The write-side flyweight writes what the decoder reads: for every opcode, the frame it lays out
 * from a frame's fields decodes to the same fields and is byte for byte what {@link FrameEncoder}
 * makes of the records — and what Linux rxe put on the wire in the reference captures.
 */
class PacketWriterTest {

    @Test
    void everyOpcodeWrittenFromItsFieldsDecodesToThemAndEqualsTheEncodersBytes() {
        PacketWriter writer = new PacketWriter();
        for (Opcode opcode : Opcode.values()) {
            Gen<RocePacket> packets = WireGenerators.packets(opcode, 300);
            Gen<RoceFrame> frames = Generate.oneOf(WireGenerators.frames(WireGenerators.ipv4Headers(), packets),
                    WireGenerators.frames(WireGenerators.ipv6Headers(), packets));
            qt().withExamples(60).forAll(frames).checkAssert(frame -> assertWritesAsEncoded(writer, frame));
        }
    }

    private static void assertWritesAsEncoded(PacketWriter writer, RoceFrame frame) {
        byte[] expected = new FrameEncoder().encode(frame);
        byte[] buffer = new byte[expected.length + 16];
        int length = write(writer, frame, buffer, 7);
        assertThat(length).isEqualTo(expected.length);
        byte[] written = Arrays.copyOfRange(buffer, 7, 7 + length);
        assertThat(written).as("%s", frame).isEqualTo(expected);
        DecodeResult result = new RoceDecoder().decode(written);
        assertThat(result).isInstanceOf(DecodeResult.Decoded.class);
        RoceFrame decoded = ((DecodeResult.Decoded) result).frame();
        assertThat(decoded.ethernet()).isEqualTo(frame.ethernet());
        assertThat(decoded.ip()).isEqualTo(frame.ip());
        assertThat(decoded.udp().sourcePort()).isEqualTo(frame.udp().sourcePort());
        assertThat(decoded.packet()).isEqualTo(frame.packet());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.roce4j.wire.ReferenceCapturesTest#captures")
    void rewritingEveryReferenceFrameFromItsFieldsGivesRxesBytes(Path capture) throws IOException {
        PacketWriter writer = new PacketWriter();
        RoceDecoder decoder = new RoceDecoder();
        byte[] buffer = new byte[9000];
        int rewritten = 0;
        try (PcapReader reader = PcapReader.open(capture)) {
            for (PcapRecord record : reader) {
                byte[] bytes = record.data();
                if (decoder.decode(bytes) instanceof DecodeResult.Decoded decoded) {
                    int length = write(writer, decoded.frame(), buffer, 0);
                    // Anything after the IP datagram is Ethernet padding, not part of the packet.
                    assertThat(Arrays.copyOf(buffer, length)).as("%s %s", capture.getFileName(), decoded.frame())
                            .isEqualTo(Arrays.copyOf(bytes, length));
                    rewritten++;
                }
            }
        }
        assertThat(rewritten).isPositive();
    }

    @Test
    void anExtensionHeaderTheOpcodeDoesNotCarryIsRefused() {
        PacketWriter writer = new PacketWriter().ethernet(new byte[200], 0, 1, 2)
                .ipv4(0, 0, true, 64, new byte[4], new byte[4]).udp(0xC000).bth(Opcode.RC_SEND_ONLY, 1, 2);
        assertThatIllegalStateException().isThrownBy(() -> writer.reth(0, 0, 0))
                .withMessageContaining("RC_SEND_ONLY carries no RETH");
        assertThatIllegalStateException().isThrownBy(() -> writer.aeth(AethSyndrome.ack(31), 0));
    }

    @Test
    void typedSettersWriteWhatTheRecordsEncode() {
        byte[] v4 = {10, 0, 0, 1};
        byte[] other = {10, 0, 0, 2};
        for (Opcode opcode : List.of(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.UD_SEND_ONLY_WITH_IMMEDIATE,
                Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.RC_COMPARE_SWAP, Opcode.RC_SEND_LAST_WITH_INVALIDATE)) {
            byte[] typed = new byte[128];
            byte[] records = new byte[128];
            PacketWriter a = new PacketWriter().ethernet(typed, 0, 5, 6).ipv4(2, 3, true, 64, v4, other).udp(9)
                    .bth(opcode, 0x123456, 0xABCDEF);
            PacketWriter b = new PacketWriter().ethernet(records, 0, 5, 6).ipv4(2, 3, true, 64, v4, other).udp(9)
                    .bth(opcode, 0x123456, 0xABCDEF);
            if (opcode.has(HeaderType.RETH)) {
                a.reth(0x1122334455667788L, 0x99, 0x1000);
                b.header(new Reth(0x1122334455667788L, 0x99, 0x1000));
            }
            if (opcode.has(HeaderType.DETH)) {
                a.deth(0x80010000, 0x000ABC);
                b.header(new Deth(0x80010000, 0x000ABC));
            }
            if (opcode.has(HeaderType.IMM_DT)) {
                a.immediate(0xCAFEBABE);
                b.header(new ImmDt(0xCAFEBABE));
            }
            if (opcode.has(HeaderType.AETH)) {
                a.aeth(AethSyndrome.nak(NakCode.REMOTE_ACCESS_ERROR), 77);
                b.header(Aeth.nak(NakCode.REMOTE_ACCESS_ERROR, 77));
            }
            if (opcode.has(HeaderType.ATOMIC_ACK_ETH)) {
                a.atomicAckEth(-5);
                b.header(new AtomicAckEth(-5));
            }
            if (opcode.has(HeaderType.ATOMIC_ETH)) {
                a.atomicEth(8, 9, 10, 11);
                b.header(new AtomicEth(8, 9, 10, 11));
            }
            if (opcode.has(HeaderType.IETH)) {
                a.invalidate(0x4242);
                b.header(new Ieth(0x4242));
            }
            int payload = opcode.carriesPayload() ? 5 : 0;
            assertThat(a.finish(payload)).isEqualTo(b.finish(payload));
            assertThat(typed).as("%s", opcode).isEqualTo(records);
        }
    }

    /** Writes a record frame through the flyweight, field by field (the records path for the rest). */
    static int write(PacketWriter writer, RoceFrame frame, byte[] buffer, int offset) {
        start(writer, frame, buffer, offset);
        Bth bth = frame.packet().bth();
        writer.bth(bth.opcode(), bth.destQp(), bth.psn())
                .solicitedEvent(bth.solicitedEvent()).migReq(bth.migReq()).pkey(bth.pkey())
                .congestion(bth.fecn(), bth.becn()).ackReq(bth.ackReq());
        for (ExtensionHeader header : frame.packet().headers()) {
            switch (header) {
                case Reth reth -> writer.reth(reth.virtualAddress(), reth.rkey(), reth.dmaLength());
                case Deth deth -> writer.deth(deth.qkey(), deth.sourceQp());
                case Aeth aeth -> writer.aeth(aeth.syndromeByte(), aeth.msn());
                case AtomicEth atomic -> writer.atomicEth(atomic.virtualAddress(), atomic.rkey(),
                        atomic.swapOrAddData(), atomic.compareData());
                case AtomicAckEth ack -> writer.atomicAckEth(ack.originalData());
                case ImmDt imm -> writer.immediate(imm.immediateData());
                case Ieth ieth -> writer.invalidate(ieth.rkey());
                default -> writer.header(header);
            }
        }
        byte[] payload = frame.packet().payload();
        writer.payload(payload, 0, payload.length);
        return writer.finish(payload.length);
    }

    /** Starts {@code frame} in the flyweight: its Ethernet, IP and UDP header fields. */
    static PacketWriter start(PacketWriter writer, RoceFrame frame, byte[] buffer, int offset) {
        EthernetHeader ethernet = frame.ethernet();
        writer.ethernet(buffer, offset, ethernet.destination().value(), ethernet.source().value(),
                ethernet.vlan().map(VlanTag::tci).orElse(-1));
        switch (frame.ip()) {
            case Ipv4Header ip -> writer.ipv4(ip.trafficClass(), ip.identification(), ip.dontFragment(), ip.ttl(),
                    ip.source().getAddress(), ip.destination().getAddress());
            case Ipv6Header ip -> writer.ipv6(ip.trafficClass(), ip.flowLabel(), ip.hopLimit(),
                    ip.source().getAddress(), ip.destination().getAddress());
        }
        return writer.udp(frame.udp().sourcePort());
    }
}
