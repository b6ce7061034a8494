package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.UdpHeader;

/**
 * A pcap tap started while frames are on their way. Frames sent while nothing but RNICs read the fabric leave
 * their ICRC out and, from 1 KiB, their payload in the sender's memory (issue 17); the tap still gets every frame
 * as the wire carries it — the ICRC, the payload, over IPv6 the UDP checksum — and none that never left its
 * sender.
 */
class TapStartedMidTransferTest {
    private static final int MESSAGE = 15 * 1024; // with the SEND, the 16 packets of one turn

    private final TwoNodes nodes = new TwoNodes();
    private final TwoNodes.Side a = nodes.a;
    private final TwoNodes.Side b = nodes.b;
    private final List<Throwable> escaped = new ArrayList<>();

    TapStartedMidTransferTest() {
        nodes.fabric.onCallbackFailure((where, failure) -> escaped.add(failure));
    }

    @AfterEach
    void close() {
        nodes.close();
        assertThat(escaped).as("exceptions thrown out of the RNIC's loop").isEmpty();
    }

    private static byte[] pattern(MemorySegment memory, int length, int seed) {
        for (int i = 0; i < length; i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed | 1));
        }
        return memory.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** A's WRITE of {@link #MESSAGE} bytes from {@code source} and a 64-byte SEND, their frames sent, none delivered. */
    private void writeAndSendLeaveUnread(Qp[] pair, Mr source) {
        pair[1].postRecv(RecvWr.of(7, b.mr, MESSAGE, 64));
        pair[0].postSend(SendWr.rdmaWrite(1, source, 0, MESSAGE, b.mr.address(), b.mr.rkey()));
        pair[0].postSend(SendWr.send(2, a.mr, 0, 64));
        nodes.fabric.step(); // A's duty cycle: the packets leave, due one link delay later, read by nobody
        assertThat(nodes.rnicA.counter(RnicCounter.FRAMES_SENT)).isEqualTo(MESSAGE / 1024 + 1);
        assertThat(nodes.rnicB.counter(RnicCounter.FRAMES_RECEIVED)).isZero();
    }

    private static byte[] writePayload(List<RoceFrame> frames) {
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        frames.stream().filter(f -> f.packet().opcode().kind() == OperationKind.RDMA_WRITE)
                .forEach(f -> written.writeBytes(f.packet().payload()));
        return written.toByteArray();
    }

    @Test
    @DisplayName("frames left before the tap started are captured with their ICRC and their payload, train and all")
    void framesSentUnreadAreCapturedAsOnTheWire() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(MESSAGE, 4096);
            byte[] sent = pattern(memory, MESSAGE, 3);
            writeAndSendLeaveUnread(nodes.connectedPair(QpType.RC, Mtu.MTU_1024), a.pd.regMr(memory, TwoNodes.ALL_ACCESS));

            CapturedFrames capture = new CapturedFrames(nodes.fabric);
            assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS, WcStatus.SUCCESS);
            nodes.fabric.close();

            List<RoceFrame> frames = capture.frames(); // each decoded, its ICRC verified
            assertThat(writePayload(frames)).isEqualTo(sent);
            assertThat(frames).filteredOn(f -> f.packet().opcode().kind() == OperationKind.SEND).singleElement()
                    .satisfies(f -> assertThat(f.packet().payload()).hasSize(64));
            assertThat(frames).hasSize(MESSAGE / 1024 + 1 + (int) nodes.rnicB.counter(RnicCounter.FRAMES_SENT));
        }
    }

    @Test
    @DisplayName("frames whose source was deregistered before the tap saw them never left: none is captured")
    void framesLostUnreadAreNotCaptured() {
        Mr source = a.pd.regMr(a.memory.asSlice(4096, MESSAGE), TwoNodes.ALL_ACCESS);
        writeAndSendLeaveUnread(nodes.connectedPair(QpType.RC, Mtu.MTU_1024), source);
        source.close();

        CapturedFrames capture = new CapturedFrames(nodes.fabric);
        assertThat(a.pollAll()).extracting(WorkCompletion::status)
                .containsExactly(WcStatus.LOC_PROT_ERR, WcStatus.WR_FLUSH_ERR);
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_SOURCE_GONE)).isEqualTo(MESSAGE / 1024);
        nodes.fabric.close();

        List<RoceFrame> frames = capture.frames();
        assertThat(frames).extracting(f -> f.packet().opcode().kind()).doesNotContain(OperationKind.RDMA_WRITE);
    }

    @Test
    @DisplayName("over IPv6 the frames left before the tap started carry a UDP checksum that covers what they carry")
    void framesSentUnreadOverIpv6CarryTheirUdpChecksum() {
        Qp qa = a.createQp(QpType.RC, 16);
        Qp qb = b.createQp(QpType.RC, 16);
        connectOverGid0(qa, qb.qpNum(), b.context.queryGid(1, 0));
        connectOverGid0(qb, qa.qpNum(), a.context.queryGid(1, 0));
        byte[] sent = pattern(a.memory, MESSAGE, 9);
        Mr source = a.pd.regMr(a.memory.asSlice(0, MESSAGE), TwoNodes.ALL_ACCESS);
        writeAndSendLeaveUnread(new Qp[] {qa, qb}, source);

        CapturedFrames capture = new CapturedFrames(nodes.fabric);
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS, WcStatus.SUCCESS);
        nodes.fabric.close();

        assertThat(writePayload(capture.frames())).isEqualTo(sent);
        assertThat(capture.bytes()).isNotEmpty().allSatisfy(frame -> {
            int ip = 14;
            int udpLength = frame.length - ip - 40;
            assertThat((frame[ip + 46] & 0xFF) << 8 | frame[ip + 47] & 0xFF).isEqualTo(UdpHeader.checksum(frame, ip, udpLength));
        });
    }

    @Test
    @DisplayName("on a threaded fabric, a tap started while WRITEs stream captures each frame whole")
    void aTapStartedMidStreamOnAThreadedFabricCapturesEachFrameWhole() throws InterruptedException {
        // A link of 1 ms keeps frames on their way whenever the tap starts.
        try (TwoNodes threaded = new TwoNodes(Fabric.threaded().linkDelay(Duration.ofMillis(1)))) {
            MemorySegment memory = threaded.a.memory;
            byte[] slice = pattern(memory, 1024, 5); // every 1 KiB of the pattern is the same: i * 31 * 1024 is 0 mod 256
            pattern(memory, MESSAGE, 5);
            Mr source = threaded.a.pd.regMr(memory.asSlice(0, MESSAGE), TwoNodes.ALL_ACCESS);
            Qp[] pair = threaded.connectedPair(QpType.RC, Mtu.MTU_1024);
            SendWr write = SendWr.rdmaWrite(1, source, 0, MESSAGE, threaded.b.mr.address(), threaded.b.mr.rkey());
            CapturedFrames capture = null;
            int posted = 0;
            int completed = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (completed < 200 && System.nanoTime() < deadline) {
                while (posted - completed < 8) {
                    pair[0].postSend(write);
                    posted++;
                }
                for (WorkCompletion wc : threaded.a.cq.poll(8)) {
                    assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
                    completed++;
                }
                if (capture == null && completed >= 50) {
                    capture = new CapturedFrames(threaded.fabric); // frames of 8 WRITEs are on their way
                }
            }
            assertThat(completed).as("WRITEs completed in 10 s").isGreaterThanOrEqualTo(200);
            threaded.fabric.close();

            List<RoceFrame> frames = capture.frames(); // each decoded, its ICRC verified
            assertThat(frames).filteredOn(f -> f.packet().opcode().kind() == OperationKind.RDMA_WRITE)
                    .hasSizeGreaterThan(MESSAGE / 1024)
                    .allSatisfy(f -> assertThat(f.packet().payload()).isEqualTo(slice));
        }
    }

    private static void connectOverGid0(Qp qp, int remoteQpn, org.roce4j.verbs.Gid remoteGid) {
        TwoNodes.BRING_UP.withSgidIndex(0).withPathMtu(Mtu.MTU_1024).connect(qp, 0, new QpBringUp.Remote(remoteQpn, 0, remoteGid));
    }
}
