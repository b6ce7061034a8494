package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.NOBODY;
import static org.roce4j.emulator.fabric.TestFrames.frame;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.emulator.fabric.TestFrames.Recorder;
import org.roce4j.wire.pcap.LinkType;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

class PcapTapTest {

    @TempDir Path dir;

    @Test
    void everyFrameIsCapturedAtTheVirtualTimeItReachesItsPortAndOneForNobodyAsSent() throws IOException {
        Path pcap = dir.resolve("run.pcap");
        List<byte[]> sent = exchange(pcap);
        // sent: the request at 0 (arrives at 1000), the frame for nobody at 0, the reply at 1000
        // (arrives at 2000), the late frame at 1.5 ms (arrives 1000 later)
        List<byte[]> inCaptureOrder = List.of(sent.get(1), sent.get(0), sent.get(2), sent.get(3));

        try (PcapReader reader = PcapReader.open(pcap)) {
            assertThat(reader.linkType()).isEqualTo(LinkType.ETHERNET);
            List<PcapRecord> records = new ArrayList<>();
            reader.forEach(records::add);
            assertThat(records).extracting(PcapRecord::timestampNanos)
                    .containsExactly(0L, 1_000L, 2_000L, 1_501_000L);
            for (int i = 0; i < inCaptureOrder.size(); i++) {
                assertThat(records.get(i).data()).as("record %d", i).isEqualTo(inCaptureOrder.get(i));
                assertThat(records.get(i).originalLength()).isEqualTo(inCaptureOrder.get(i).length);
            }
        }
    }

    @Test
    void twoRunsOfTheSameScenarioWriteIdenticalFiles() throws IOException {
        Path first = dir.resolve("first.pcap");
        Path second = dir.resolve("second.pcap");
        exchange(first);
        exchange(second);

        assertThat(Files.size(first)).isGreaterThan(24);
        assertThat(Files.mismatch(first, second)).isEqualTo(-1L);
    }

    @Test
    void aSecondTapIsRefused() throws IOException {
        try (Fabric fabric = Fabric.deterministic()) {
            fabric.tap(dir.resolve("one.pcap"));
            assertThatThrownBy(() -> fabric.tap(dir.resolve("two.pcap"))).isInstanceOf(IllegalStateException.class);
        }
    }

    /**
     * At 0, A sends a RoCE frame to B and one to nobody; B answers on arrival (at 1000); an agent
     * sends one more at 1.5 ms. {@return the frames in transmit order}
     */
    private static List<byte[]> exchange(Path pcap) throws IOException {
        List<byte[]> sent = new ArrayList<>();
        try (Fabric fabric = Fabric.deterministic()) {
            fabric.tap(pcap);
            FabricPort a = fabric.attach(A, new Recorder("A"));
            FabricPort[] b = new FabricPort[1];
            b[0] = fabric.attach(B, (frame, off, len, now) -> {
                if (sent.size() == 2) {
                    byte[] reply = frame(A, B, 0x77, 60);
                    sent.add(reply);
                    b[0].transmit(reply, 0, reply.length);
                }
            });
            byte[] request = TestFrames.roceSend(B, A, 1, "ping".getBytes());
            byte[] lost = frame(NOBODY, A, 0x11, 80);
            sent.add(request);
            sent.add(lost);
            a.transmit(request, 0, request.length);
            a.transmit(lost, 0, lost.length);
            fabric.addAgent(new VirtualTimeTest.TimerAgent(1_500_000, 0) {
                @Override
                public int doWork(long nowNanos) {
                    int fired = super.doWork(nowNanos);
                    if (fired > 0) {
                        byte[] late = frame(B, A, 0x22, 1_000);
                        sent.add(late);
                        a.transmit(late, 0, late.length);
                    }
                    return fired;
                }
            });
            fabric.runUntilIdle();
            fabric.runFor(Duration.ofMillis(1));
        }
        return sent;
    }
}
