package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.emulator.fabric.IcrcOffloadTest.OffloadingReceiver;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.PacketWriter;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * A train ({@link PayloadReference#train}) on the fabric: delivered as the frames it stands for, one step each,
 * each with its own PSN, Identification and bytes; counted as frames; routed as frames one by one when a reader
 * on the way needs their bytes; and dropped as frames when the fabric closes.
 */
class PacketTrainRoutingTest {
    private static final int PACKET = 256;
    private static final int PACKETS = 4;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment memory = arena.allocate(PACKET * PACKETS);
    private final PayloadReference.Source source = new PayloadReference.Source() {
        @Override
        public MemorySegment segment() {
            return memory;
        }

        @Override
        public boolean isReadable() {
            return true;
        }
    };
    private final Fabric fabric = Fabric.deterministic();
    private final OffloadingReceiver atB = new OffloadingReceiver();
    private final FabricPort a = fabric.attach(A, new OffloadingReceiver());

    PacketTrainRoutingTest() {
        fabric.attach(B, atB);
        for (int i = 0; i < PACKET * PACKETS; i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i / PACKET + 1));
        }
    }

    @AfterEach
    void close() {
        fabric.close();
        arena.close();
    }

    /** The train's first packet, an RC WRITE MIDDLE of PSN 100 and Identification 7, its payload left out. */
    private static byte[] firstPacket(MacAddress to) {
        byte[] frame = new byte[Fabric.MAX_FRAME_LENGTH];
        PacketWriter writer = new PacketWriter();
        writer.offloadIcrc(true);
        int length = writer.ethernet(frame, 0, to.value(), A.value()).ipv4(0, 7, true, 64, new byte[] {10, 0, 0, 1},
                new byte[] {10, 0, 0, 2}).udp(0xC000).bth(Opcode.RC_RDMA_WRITE_MIDDLE, 0x11, 100).finish(PACKET);
        return Arrays.copyOf(frame, length);
    }

    private PayloadReference train(byte[] frame) {
        return new PayloadReference().set(source, 0, frame.length - PACKET - 4, PACKET * PACKETS)
                .train(PACKETS, PACKET, 1, true, true);
    }

    /** What a receiver got: PSN, Identification, AckReq, opcode, the first payload byte, per frame. */
    private static List<String> packets(List<byte[]> frames) {
        List<String> seen = new ArrayList<>();
        PacketInfo packet = new PacketInfo();
        for (byte[] frame : frames) {
            assertThat(packet.parseFrame(frame, 0, frame.length) || packet.parseTrustedFrame(frame, 0, frame.length))
                    .isTrue();
            int identification = (frame[packet.ipOffset() + 4] & 0xFF) << 8 | frame[packet.ipOffset() + 5] & 0xFF;
            seen.add(packet.opcode() + " psn=" + packet.psn() + " id=" + identification + " ackReq=" + packet.ackReq()
                    + " payload=" + frame[packet.payloadOffset()]);
        }
        return seen;
    }

    private static final List<String> FOUR_PACKETS = List.of(
            "RC_RDMA_WRITE_MIDDLE psn=100 id=7 ackReq=false payload=1",
            "RC_RDMA_WRITE_MIDDLE psn=101 id=8 ackReq=false payload=2",
            "RC_RDMA_WRITE_MIDDLE psn=102 id=9 ackReq=false payload=3",
            "RC_RDMA_WRITE_LAST psn=103 id=10 ackReq=true payload=4");

    @Test
    void aTrainArrivesAsItsFramesOneStepEach() {
        byte[] frame = firstPacket(B);
        a.transmitHandingOver(frame, frame.length, train(frame));
        assertThat(fabric.counters().framesTransmitted()).isEqualTo(PACKETS);
        assertThat(fabric.counters().framesInFlight()).isEqualTo(PACKETS);

        int steps = 0;
        while (fabric.step()) {
            steps++;
            assertThat(atB.unchanged).hasSize(steps);
        }

        assertThat(steps).isEqualTo(PACKETS);
        assertThat(packets(atB.unchanged.stream().map(TestFrames.Arrival::bytes).toList())).isEqualTo(FOUR_PACKETS);
        assertThat(fabric.counters().framesDelivered()).isEqualTo(PACKETS);
        assertThat(fabric.counters().framesInFlight()).isZero();
    }

    @Test
    void aTrainMetByATapGoesAsItsFramesWithTheirBytes(@TempDir Path dir) throws IOException {
        Path capture = dir.resolve("train.pcap");
        byte[] frame = firstPacket(B);
        PayloadReference train = train(frame);
        fabric.tap(capture); // after the sender looked: it needs the bytes now
        a.transmitHandingOver(frame, frame.length, train);
        fabric.runUntilIdle();
        fabric.close();

        List<byte[]> captured = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(capture)) {
            for (PcapRecord captureRecord : reader) {
                captured.add(captureRecord.data());
            }
        }
        assertThat(packets(captured)).isEqualTo(FOUR_PACKETS);
        assertThat(packets(atB.unchanged.stream().map(TestFrames.Arrival::bytes).toList())).isEqualTo(FOUR_PACKETS);
        assertThat(fabric.counters().framesTransmitted()).isEqualTo(PACKETS);
    }

    @Test
    void aClosingFabricDropsATrainAsItsFrames() {
        byte[] frame = firstPacket(B);
        a.transmitHandingOver(frame, frame.length, train(frame));
        fabric.step();
        fabric.close();
        assertThat(fabric.counters().framesDroppedClosed()).isEqualTo(PACKETS - 1);
        assertThat(atB.unchanged).hasSize(1);
    }

    @Test
    void aTrainToAnUnknownPortIsLostAsItsFrames() {
        byte[] frame = firstPacket(TestFrames.NOBODY);
        a.transmitHandingOver(frame, frame.length, train(frame));
        assertThat(fabric.counters().framesDroppedUnknownDestination()).isEqualTo(PACKETS);
    }

    @Test
    void aTrainLongerThanItsBytesIsRefused() {
        PayloadReference reference = new PayloadReference().set(source, 0, 54, 3 * PACKET);
        assertThatIllegalArgumentException().isThrownBy(() -> reference.train(4, PACKET, 1, false, false));
        assertThat(reference.train(3, PACKET, 1, false, false).packets()).isEqualTo(3);
    }
}
