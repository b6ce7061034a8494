package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.emulator.fabric.FaultCounters;
import org.roce4j.emulator.fabric.FrameClass;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.pcap.CaptureReader;
import org.roce4j.wire.pcap.CapturedPacket;

/**
 * The UDP link's capture follows the fabric's rule (issue 21): what the socket was given, a dropped
 * frame as it would have been sent, and in pcapng a comment on each frame the fault plan touched.
 */
@Timeout(60)
class FaultCaptureOverUdpTest {

    /** What {@link #rcWriteUnder} saw: the plan's counters, and when the WRITE was posted (epoch ns, as the capture stamps). */
    private record WriteRun(FaultCounters done, long postedAtEpochNanos) {
    }

    /** An RC WRITE of {@code bytes} from rxe21a to rxe21b under {@code plan} on rxe21a's sends, captured into {@code pcapng}. */
    private static WriteRun rcWriteUnder(Faults plan, int bytes, Path pcapng) throws Exception {
        try (UdpSide a = new UdpSide("rxe21a", "127.0.21.1", UdpLinkConfig.DEFAULT);
             UdpSide b = new UdpSide("rxe21b", "127.0.21.2", UdpLinkConfig.DEFAULT)) {
            a.rnic.tap(pcapng);
            Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
            a.rnic.faults(plan);
            Instant posted = Instant.now();
            qp[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, bytes, b.mr.address(), b.mr.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            FaultCounters done = a.rnic.faultCounters();
            awaitHeldFrames(a, done);
            a.rnic.close();
            return new WriteRun(done, posted.getEpochSecond() * 1_000_000_000L + posted.getNano());
        }
    }

    /**
     * Waits (at most 5 s) until every frame A's RNIC handed its link is on the wire or dropped by the plan: the
     * WRITE may complete by a go-back before a held-back frame leaves, and closing the link would cancel it.
     */
    private static void awaitHeldFrames(UdpSide a, FaultCounters done) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (a.rnic.linkCounters().framesSent() + done.dropped() - done.duplicated()
                < a.rnic.rnic().counters().get(org.roce4j.emulator.RnicCounter.FRAMES_SENT)
                && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
    }

    /** The captured frames that are requests, or that carry a comment. */
    private static List<CapturedPacket> requestsAndCommented(Path pcapng) throws Exception {
        List<CapturedPacket> sent = new ArrayList<>();
        PacketInfo info = new PacketInfo();
        try (CaptureReader reader = CaptureReader.open(pcapng)) {
            reader.forEach(p -> {
                if (info.parseFrame(p.data(), 0, p.data().length) && info.opcode().isRequest() || !p.comments().isEmpty()) {
                    sent.add(p);
                }
            });
        }
        return sent;
    }

    @Test
    @DisplayName("a pcapng tap on a UDP-linked RNIC with a fault plan: the dropped request is captured as sent and says so, "
            + "the duplicate twice, the corrupted one with a bad ICRC")
    void theCaptureShowsWhatThePlanDidToEachSentFrame(@TempDir Path dir) throws Exception {
        Path pcapng = dir.resolve("faults.pcapng");
        WriteRun run = rcWriteUnder(Faults.seeded(1).dropNth(1, FrameMatch.only(FrameClass.REQUESTS))
                .duplicateNth(2, FrameMatch.only(FrameClass.REQUESTS))
                .corruptNth(3, FrameMatch.only(FrameClass.REQUESTS)), 4 * 1024, pcapng);
        assertThat(run.done()).isEqualTo(new FaultCounters(1, 1, 1, 0, 0));

        List<CapturedPacket> sent = requestsAndCommented(pcapng);
        PacketInfo info = new PacketInfo();
        assertThat(sent).filteredOn(p -> p.comments().equals(List.of("dropped by rule 1"))).hasSize(1);
        assertThat(sent).filteredOn(p -> p.comments().equals(List.of("duplicated by rule 2"))).hasSize(1);
        assertThat(sent).filteredOn(p -> p.comments().equals(List.of("ICRC corrupted by rule 3"))).singleElement()
                .satisfies(p -> assertThat(info.parseFrame(p.data(), 0, p.data().length)).as("ICRC verifies").isFalse());
    }

    @Test
    @DisplayName("a delay rule on a UDP-linked RNIC holds the frame back in real time: it leaves, and is captured, "
            + "that much after the WRITE was posted and after the frame sent right after it, and the WRITE still completes")
    void aDelayedFrameLeavesLaterInRealTime(@TempDir Path dir) throws Exception {
        Path pcapng = dir.resolve("delay.pcapng");
        long delayNanos = 30_000_000;
        WriteRun run = rcWriteUnder(Faults.seeded(1).delayNth(1, Duration.ofNanos(delayNanos),
                FrameMatch.only(FrameClass.REQUESTS)), 2 * 1024, pcapng);
        assertThat(run.done()).isEqualTo(new FaultCounters(0, 0, 0, 1, 0));

        // The WRITE's first packet was held back: its second, sent right after, is captured before it.
        List<CapturedPacket> requests = requestsAndCommented(pcapng);
        assertThat(requests).hasSizeGreaterThanOrEqualTo(2);
        assertThat(requests.getFirst().comments()).isEmpty();
        CapturedPacket held = requests.stream().filter(p -> p.comments().equals(List.of("held back 30000 µs by rule 1")))
                .findFirst().orElseThrow();
        assertThat(held.timestampNanos() - run.postedAtEpochNanos()).isGreaterThanOrEqualTo(delayNanos);
    }
}
