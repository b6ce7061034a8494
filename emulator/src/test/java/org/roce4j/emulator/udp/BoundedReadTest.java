package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * Bounded work per request (issue 13): the responder sends a READ's responses as the link has
 * room, not all at once on the receive path. Asserted on counters, not on wall time.
 */
@Timeout(180)
class BoundedReadTest {
    /** Rnic.READ_QUEUE_HIGH: the most frames a READ keeps in the link's transmit queue. */
    private static final int READ_QUEUE_HIGH = 256;
    private static final int LENGTH = 256 << 20;
    private static final int RESPONSES = LENGTH / 4096;

    /** Udp RcvbufErrors of /proc/net/snmp: datagrams the kernel dropped for a full socket buffer (all sockets). */
    private static long kernelReceiveBufferDrops() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp")).stream().filter(l -> l.startsWith("Udp:")).toList();
        List<String> names = List.of(lines.get(0).split("\\s+"));
        return Long.parseLong(lines.get(1).split("\\s+")[names.indexOf("RcvbufErrors")]);
    }

    @Test
    @DisplayName("Bounded work per request: a 256 MiB RDMA READ over the UDP link (loopback, MTU 4096: 65,536 "
            + "responses) completes with every byte, no transmit-queue drop on either side, and the responder never "
            + "keeps more than 256 of its frames queued in the link")
    void aReadOf256MiBIsSentAsTheLinkHasRoom() throws Exception {
        MemoryMXBean heap = ManagementFactory.getMemoryMXBean();
        UdpLinkConfig config = UdpLinkConfig.DEFAULT.withActiveMtu(Mtu.MTU_4096);
        long kernelDropsBefore = kernelReceiveBufferDrops();
        try (UdpSide requester = new UdpSide("rxe13r", "127.0.13.1", config, LENGTH);
             UdpSide responder = new UdpSide("rxe13s", "127.0.13.2", config, LENGTH)) {
            // ACK timeout 17 (0.5 s), as TwoProcessTransferTest: on a loaded 2-core machine a 67 ms timer
            // expires while the responses are on their way.
            Qp[] qp = UdpSide.pair(requester, responder, QpType.RC, config.activeMtu(), rts -> rts.timeout(17));
            UdpSide.fill(responder.memory, 0, LENGTH, 13);
            System.gc();
            long heapBefore = heap.getHeapMemoryUsage().getUsed();
            long started = System.nanoTime();
            qp[0].postSend(SendWr.rdmaRead(1, requester.mr, 0, LENGTH, responder.mr.address(), responder.mr.rkey()));
            WorkCompletion wc = requester.pollOne(150);
            long kernelDrops = kernelReceiveBufferDrops() - kernelDropsBefore;
            long millis = (System.nanoTime() - started) / 1_000_000;
            long heapAfter = heap.getHeapMemoryUsage().getUsed();

            UdpLinkCounters responderLink = responder.rnic.linkCounters();
            UdpLinkCounters requesterLink = requester.rnic.linkCounters();
            long peak = responder.rnic.rnic().peakReadFramesQueued();
            long responsesSent = responder.rnic.rnic().counter(RnicCounter.FRAMES_SENT);
            long retransmitted = requester.rnic.rnic().counter(RnicCounter.RETRANSMITTED_PACKETS);
            long ackTimeouts = requester.rnic.rnic().counter(RnicCounter.LOCAL_ACK_TIMEOUTS);
            long retries = requester.rnic.rnic().counter(RnicCounter.RETRIES);
            int frameBytes = 14 + 20 + 8 + 12 + 4 + 4096 + 4; // Ethernet, IPv4, UDP, BTH, AETH, payload, ICRC
            System.out.printf("256 MiB READ over UDP (MTU 4096): %d ms; responder peak %d frames queued (~%d KiB), "
                            + "%d responses sent for %d; requester retransmitted %d packets, %d retries, %d ACK timeouts; "
                            + "kernel receive-buffer drops %d; heap used %+d KiB over the READ;%n"
                            + "  responder link %s%n  requester link %s%n",
                    millis, peak, peak * frameBytes >> 10, responsesSent, RESPONSES, retransmitted, retries,
                    ackTimeouts, kernelDrops, (heapAfter - heapBefore) >> 10, responderLink, requesterLink);

            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen()).isEqualTo(LENGTH);
            UdpSide.assertSameBytes(requester.memory, 0, responder.memory, 0, LENGTH);
            assertThat(responderLink.transmitQueueDrops()).as("responder's transmit-queue drops").isZero();
            assertThat(requesterLink.transmitQueueDrops()).as("requester's transmit-queue drops").isZero();
            assertThat(peak).as("the responder's peak READ frames queued in the link")
                    .isPositive().isLessThanOrEqualTo(READ_QUEUE_HIGH);
            assertThat(responsesSent).as("responses sent: every one once, plus what the retries asked again")
                    .isGreaterThanOrEqualTo(RESPONSES);
            // The kernel drops what a receiver starved of CPU cannot take (other builds on the same 2
            // cores); each drop costs the requester a go-back — a few, not one per response.
            assertThat(retries).as("the requester's go-backs").isLessThan(RESPONSES / 100);
        }
    }
}
