package org.roce4j.emulator;

import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.emulator.transport.Responder;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.wire.Opcode;

/**
 * Which PSNs a responder answers (RC) or starts a message at (UC), driven with frames forged with
 * the peer's address and the right rkey — only the PSN decides. B expects PSN 100 from A.
 */
class PsnWindowTest {
    private static final int W = Responder.RC_PSN_WINDOW;
    private final TwoNodes nodes = new TwoNodes();
    private final ForgedFrames forge = new ForgedFrames();

    @AfterEach
    void close() {
        nodes.close();
    }

    private void deliver(byte[] transport) {
        byte[] bytes = forge.frame(transport);
        nodes.fabric.locked(() -> nodes.rnicB.rnic().onFrame(bytes, 0, bytes.length, 0));
        nodes.fabric.runUntilIdle();
    }

    private void write(Opcode opcode, int qpn, int psn, long va, int length, byte fill) {
        byte[] payload = new byte[length];
        java.util.Arrays.fill(payload, fill);
        byte[] reth = opcode.position().startsMessage()
                ? ForgedFrames.reth(va, nodes.b.mr.rkey(), opcode == Opcode.UC_RDMA_WRITE_FIRST ? 2 * length : length)
                : new byte[0];
        deliver(ForgedFrames.transport(opcode.code(), qpn, psn, true, reth, payload));
    }

    private long sent() {
        return nodes.rnicB.counter(RnicCounter.FRAMES_SENT);
    }

    private long outOfWindow() {
        return nodes.rnicB.counter(RnicCounter.DROPPED_PSN_OUT_OF_WINDOW);
    }

    @Test
    @DisplayName("RC: a request W or more PSNs ahead, or more than W behind, is dropped without a NAK or re-ACK; "
            + "just inside, it is NAKed (sequence error) or re-ACKed as before")
    void rcWindow() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        int qpn = pair[1].qpNum();
        deliver(ForgedFrames.transport(Opcode.RC_SEND_ONLY.code(), qpn, 100 + W, true, new byte[0], new byte[8]));
        deliver(ForgedFrames.transport(Opcode.RC_SEND_ONLY.code(), qpn, 100 - W - 1, true, new byte[0], new byte[8]));
        assertThat(sent()).as("answers to out-of-window requests").isZero();
        assertThat(outOfWindow()).isEqualTo(2);

        deliver(ForgedFrames.transport(Opcode.RC_SEND_ONLY.code(), qpn, 100 + W - 1, true, new byte[0], new byte[8]));
        assertThat(nodes.rnicB.counter(RnicCounter.OUT_OF_SEQUENCE_REQUESTS)).isEqualTo(1);
        deliver(ForgedFrames.transport(Opcode.RC_SEND_ONLY.code(), qpn, 100 - W, true, new byte[0], new byte[8]));
        assertThat(nodes.rnicB.counter(RnicCounter.DUPLICATE_REQUESTS)).isEqualTo(1);
        assertThat(sent()).as("a sequence NAK and a re-ACK").isEqualTo(2);
        assertThat(outOfWindow()).isEqualTo(2);
        assertThat(pair[1].state()).isEqualTo(QpState.RTS);
    }

    @Test
    @DisplayName("RC: a duplicate of a saved READ is replayed even when its PSN is more than W behind (a long READ)")
    void rcLongReadDuplicateIsReplayed() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_256);
        int qpn = pair[1].qpNum();
        int packets = W + 8;
        MemorySegment big = nodes.arena.allocate((long) packets * 256, 4096);
        Mr mr = nodes.b.pd.regMr(big, java.util.EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
        byte[] reth = ForgedFrames.reth(mr.address(), mr.rkey(), packets * 256);
        deliver(ForgedFrames.transport(Opcode.RC_RDMA_READ_REQUEST.code(), qpn, 100, true, reth, new byte[0]));
        long afterFirst = sent();
        assertThat(afterFirst).as("READ responses").isEqualTo(packets);
        // the requester lost the responses and asks again from the start: 100 is now W + 8 behind
        deliver(ForgedFrames.transport(Opcode.RC_RDMA_READ_REQUEST.code(), qpn, 100, true, reth, new byte[0]));
        assertThat(sent() - afterFirst).as("READ responses replayed").isEqualTo(packets);
        assertThat(outOfWindow()).isZero();
        // a SEND at the same distance is not a saved READ: dropped
        deliver(ForgedFrames.transport(Opcode.RC_SEND_ONLY.code(), qpn, 99, true, new byte[0], new byte[8]));
        assertThat(outOfWindow()).isEqualTo(1);
    }

    @Test
    @DisplayName("IBTA 9.8.3 (UC): a message starting behind the expected PSN is dropped, nothing written; "
            + "a start ahead of it is taken (the sender lost packets), as rxe")
    void ucStartBehindIsDropped() {
        Qp[] pair = nodes.connectedPair(QpType.UC, Mtu.MTU_1024);
        int qpn = pair[1].qpNum();
        long va = nodes.b.mr.address();
        write(Opcode.UC_RDMA_WRITE_ONLY, qpn, 99, va, 64, (byte) 0x55);
        write(Opcode.UC_RDMA_WRITE_ONLY, qpn, 100 - W - 5, va, 64, (byte) 0x55);
        assertThat(nodes.b.memory.get(ValueLayout.JAVA_BYTE, 0)).isZero();
        assertThat(outOfWindow()).isEqualTo(2);
        write(Opcode.UC_RDMA_WRITE_ONLY, qpn, 100 + 5000, va, 64, (byte) 0x66);
        assertThat(nodes.b.memory.get(ValueLayout.JAVA_BYTE, 63)).isEqualTo((byte) 0x66);
        assertThat(((EmulatedQp) pair[1]).responder.expectedPsn).isEqualTo(100 + 5001);
    }

    @Test
    @DisplayName("UC: a forged ONLY behind the expected PSN does not break the message in progress")
    void ucMessageInProgressSurvivesAnOldStart() {
        Qp[] pair = nodes.connectedPair(QpType.UC, Mtu.MTU_256);
        int qpn = pair[1].qpNum();
        long va = nodes.b.mr.address();
        write(Opcode.UC_RDMA_WRITE_FIRST, qpn, 100, va, 256, (byte) 0x11);
        write(Opcode.UC_RDMA_WRITE_ONLY, qpn, 50, va + 4096, 64, (byte) 0x77);
        write(Opcode.UC_RDMA_WRITE_LAST, qpn, 101, 0, 256, (byte) 0x22);
        assertThat(nodes.b.memory.get(ValueLayout.JAVA_BYTE, 4096)).as("the forged ONLY").isZero();
        assertThat(nodes.b.memory.get(ValueLayout.JAVA_BYTE, 255)).isEqualTo((byte) 0x11);
        assertThat(nodes.b.memory.get(ValueLayout.JAVA_BYTE, 511)).as("the LAST of the real message").isEqualTo((byte) 0x22);
    }
}
