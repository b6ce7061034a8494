package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * Issue 17, one copy: on the in-process fabric, while nothing but RNICs reads frames, a WRITE's or SEND's
 * payload stays in the requester's region until its frame is delivered and goes from there straight into
 * the responder's memory, as DMA moves it. What a user can see of it: every byte placed as before; a region
 * deregistered (or its arena closed) after its frames left is not read again — those frames are lost and the
 * WQE fails; a tap, which needs the bytes, turns it off.
 */
class PayloadByReferenceTest {
    private static final int MESSAGE = 4096;

    private final TwoNodes nodes = new TwoNodes();
    private final TwoNodes.Side a = nodes.a;
    private final TwoNodes.Side b = nodes.b;
    private final List<Throwable> escaped = new ArrayList<>();

    PayloadByReferenceTest() {
        nodes.fabric.onCallbackFailure((where, failure) -> escaped.add(failure));
    }

    @AfterEach
    void close() {
        nodes.close();
        assertThat(escaped).as("exceptions thrown out of the RNIC's loop").isEmpty();
    }

    private static void fillPattern(MemorySegment memory, long offset, long length, int seed) {
        for (long i = 0; i < length; i++) {
            memory.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (i * 31 + seed | 1));
        }
    }

    private static byte[] bytes(MemorySegment memory, long offset, long length) {
        return memory.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** A WRITE of {@link #MESSAGE} bytes (four packets at MTU 1024) from {@code source}, its frames sent, none delivered. */
    private Qp writeSentNotDelivered(Mr source) {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[0].postSend(SendWr.rdmaWrite(1, source, 0, MESSAGE, b.mr.address(), b.mr.rkey()));
        nodes.fabric.step(); // A's duty cycle: the four packets leave, due one link delay later
        assertThat(nodes.rnicA.counter(RnicCounter.FRAMES_SENT)).isEqualTo(4);
        assertThat(nodes.rnicB.counter(RnicCounter.FRAMES_RECEIVED)).isZero();
        return pair[0];
    }

    /** The four frames lost at B unread, the WRITE failed LOC_PROT_ERR at A (its retransmission found the source gone). */
    private void assertLostUnreadAndFailed(Qp qp) {
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.LOC_PROT_ERR);
        assertThat(qp.state()).isEqualTo(QpState.ERR);
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_SOURCE_GONE)).isEqualTo(4);
        assertThat(bytes(b.memory, 0, MESSAGE)).as("the target").containsOnly(0);
    }

    @Test
    @DisplayName("a 64 KiB WRITE, a SEND from two SGEs into three and a short one into two land byte for byte (packets within one SGE by reference, the rest copied)")
    void everyBytePlaced() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        fillPattern(a.memory, 0, 64 * 1024, 7);
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 64 * 1024, b.mr.address() + 3, b.mr.rkey()));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(bytes(b.memory, 3, 64 * 1024)).isEqualTo(bytes(a.memory, 0, 64 * 1024));

        // 8,000 bytes from SGEs of 1,500 and 6,500 (the second packet spans both: copied; the third lies in the
        // second SGE, 548 bytes in), into 1,000 + 2,000 + 5,000 (the first packet spans two of them)
        assertSendPlaced(pair, 3, new int[] {1_500, 6_500}, new int[] {1_000, 2_000, 5_000});
        // 900 bytes, under the least sent by reference: the frame carries them, into 400 + 500
        assertSendPlaced(pair, 4, new int[] {900}, new int[] {400, 500});
    }

    /** A SEND gathered from SGEs of {@code sendSges} bytes each, scattered into {@code recvSges}: every byte in place. */
    private void assertSendPlaced(Qp[] pair, long wrId, int[] sendSges, int[] recvSges) {
        SendWr send = new SendWr().wrId(wrId).opcode(WrOpcode.SEND).signaled(true);
        RecvWr recv = new RecvWr().wrId(wrId);
        java.io.ByteArrayOutputStream sent = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < sendSges.length; i++) {
            long at = 100_000L * (i + 1);
            fillPattern(a.memory, at, sendSges[i], (int) wrId * 10 + i);
            sent.writeBytes(bytes(a.memory, at, sendSges[i]));
            send.sge(a.mr, at, sendSges[i]);
        }
        for (int i = 0; i < recvSges.length; i++) {
            recv.sge(b.mr, 500_000L + 10_000L * i, recvSges[i]);
        }
        pair[1].postRecv(recv);
        pair[0].postSend(send);
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).extracting(WorkCompletion::status, WorkCompletion::byteLen)
                .containsExactly(tuple(WcStatus.SUCCESS, sent.size()));
        java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
        for (int i = 0, left = sent.size(); left > 0; i++) {
            int n = Math.min(left, recvSges[i]);
            received.writeBytes(bytes(b.memory, 500_000L + 10_000L * i, n));
            left -= n;
        }
        assertThat(received.toByteArray()).isEqualTo(sent.toByteArray());
    }

    @Test
    @DisplayName("source deregistered after its WRITE's frames left: they are lost unread, the WRITE fails LOC_PROT_ERR, not a byte placed")
    void sourceDeregisteredInFlight() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(MESSAGE, 4096);
            fillPattern(memory, 0, MESSAGE, 3);
            Mr source = a.pd.regMr(memory, TwoNodes.ALL_ACCESS);
            Qp qp = writeSentNotDelivered(source);
            source.close();
            assertLostUnreadAndFailed(qp);
        }
    }

    @Test
    @DisplayName("source's arena closed after its WRITE's frames left: they are lost, the WRITE fails LOC_PROT_ERR, nothing escapes")
    void sourceArenaClosedInFlight() {
        Arena arena = Arena.ofShared();
        Mr source = a.pd.regMr(arena.allocate(MESSAGE, 4096), TwoNodes.ALL_ACCESS);
        Qp qp = writeSentNotDelivered(source);
        arena.close();
        assertLostUnreadAndFailed(qp);
    }

    @Test
    @DisplayName("with a tap the frames carry their payload: the WRITE whose source was deregistered after they left completes")
    void tapTurnsItOff(@TempDir Path dir) throws IOException {
        nodes.fabric.tap(dir.resolve("write.pcap"));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(MESSAGE, 4096);
            fillPattern(memory, 0, MESSAGE, 5);
            byte[] sent = bytes(memory, 0, MESSAGE);
            Mr source = a.pd.regMr(memory, TwoNodes.ALL_ACCESS);
            writeSentNotDelivered(source);
            source.close();
            assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_SOURCE_GONE)).isZero();
            assertThat(bytes(b.memory, 0, MESSAGE)).isEqualTo(sent);
        }
    }
}
