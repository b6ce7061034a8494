package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqAttr;
import org.roce4j.verbs.SrqAttrMask;
import org.roce4j.verbs.SrqInitAttr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

class UnreliableAndSharedQueuesTest {
    private final TwoNodes nodes = new TwoNodes();
    private final TwoNodes.Side a = nodes.a;
    private final TwoNodes.Side b = nodes.b;

    @AfterEach
    void close() {
        nodes.close();
    }

    private Qp[] udPair() {
        return nodes.connectedPair(QpType.UD, Mtu.MTU_1024);
    }

    /** A's QP of the pair sends {@code length} bytes of its region to B's with this Q_Key, through an AH to B. */
    private void sendDatagram(Qp[] pair, long wrId, int length, int qkey) {
        Ah ah = a.pd.createAh(AhAttr.of(b.gid(), 1, 1));
        pair[0].postSend(SendWr.send(wrId, a.mr, 0, length).ud(ah, pair[1].qpNum(), qkey));
    }

    @Test
    @DisplayName("UD receive: 40-byte GRH first — over IPv4 20 zero bytes then the IPv4 header — byte_len counts it")
    void udGrhLayout() {
        Qp[] pair = udPair();
        Ah ah = a.pd.createAh(AhAttr.of(b.gid(), 1, 1));
        for (int i = 0; i < 100; i++) {
            a.memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
        }
        pair[1].postRecv(RecvWr.of(1, b.mr, 0, 1024));
        pair[0].postSend(SendWr.send(2, a.mr, 0, 100).ud(ah, pair[1].qpNum(), 0x11111111));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).singleElement().satisfies(wc -> {
            assertThat(wc.byteLen()).isEqualTo(140);
            assertThat(wc.has(WcFlag.GRH)).isTrue();
            assertThat(wc.srcQp()).isEqualTo(pair[0].qpNum());
        });
        MemorySegment grh = b.memory.asSlice(0, 40);
        for (int i = 0; i < 20; i++) {
            assertThat(grh.get(ValueLayout.JAVA_BYTE, i)).as("GRH byte %d", i).isZero();
        }
        assertThat(grh.get(ValueLayout.JAVA_BYTE, 20)).isEqualTo((byte) 0x45);
        assertThat(grh.get(ValueLayout.JAVA_BYTE, 29)).isEqualTo((byte) 17);
        assertThat(grh.asSlice(32, 4).toArray(ValueLayout.JAVA_BYTE)).containsExactly(10, 0, 0, 1);
        assertThat(grh.asSlice(36, 4).toArray(ValueLayout.JAVA_BYTE)).containsExactly(10, 0, 0, 2);
        assertThat(MemorySegment.mismatch(a.memory, 0, 100, b.memory, 40, 140)).isEqualTo(-1);
    }

    @Test
    @DisplayName("IBTA C10-15: a UD packet with the wrong Q_Key is silently dropped and counted")
    void qkeyViolation() {
        Qp[] pair = udPair();
        pair[1].postRecv(RecvWr.of(1, b.mr, 0, 1024));
        sendDatagram(pair, 2, 10, 0x22222222);
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).isEmpty();
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_QKEY_VIOLATION)).isEqualTo(1);
    }

    @Test
    @DisplayName("IBTA 10.2.5: a Q_Key with the high bit set in the WR sends the QP's own Q_Key")
    void qkeyHighBitMeansOwnQkey() {
        Qp[] pair = udPair();
        pair[1].postRecv(RecvWr.of(1, b.mr, 0, 1024));
        sendDatagram(pair, 2, 10, 0x80000000);
        assertThat(b.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
    }

    @Test
    @DisplayName("IBTA C10-93.1.1: a UD message longer than the MTU sends nothing and completes without error, as rxe")
    void udMessageTooLong() {
        Qp[] pair = udPair();
        Ah ah = a.pd.createAh(AhAttr.of(b.gid(), 1, 1));
        long framesBefore = nodes.fabric.counters().framesTransmitted();
        pair[0].postSend(SendWr.send(2, a.mr, 0, 1025).ud(ah, pair[1].qpNum(), 0x11111111));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(nodes.fabric.counters().framesTransmitted()).isEqualTo(framesBefore);
        assertThat(b.pollAll()).isEmpty();
    }

    @Test
    @DisplayName("A UD datagram longer than the receive WQE is dropped and counted (dropped_ud_too_long); the WQE is "
            + "kept, the QP stays in RTS")
    void udDatagramLongerThanReceiveIsDropped() {
        Qp[] pair = udPair();
        pair[1].postRecv(RecvWr.of(1, b.mr, 0, 64));   // the GRH's 40 bytes and 24 of payload
        sendDatagram(pair, 2, 25, 0x11111111);
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).isEmpty();
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_UD_TOO_LONG)).isEqualTo(1);
        assertThat(pair[1].state()).isEqualTo(QpState.RTS);
        sendDatagram(pair, 3, 24, 0x11111111);
        assertThat(b.pollAll()).singleElement().satisfies(wc -> {
            assertThat(wc.wrId()).isEqualTo(1);
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen()).isEqualTo(64);
        });
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_UD_TOO_LONG)).isEqualTo(1);
    }

    @Test
    @DisplayName("SRQ of another PD: a receive buffer of the QP's PD, not the SRQ's, fails (LOC_PROT_ERR): the WQE is the SRQ's")
    void srqOfAnotherPdChecksTheSrqsPd() {
        Pd srqPd = b.context.allocPd();
        Srq srq = srqPd.createSrq(new SrqInitAttr(4, 1, 0));
        Qp qa = a.createQp(QpType.RC, 4);
        Qp qb = b.pd.createQp(QpInitAttr.of(QpType.RC, b.cq, QpCap.of(4, 0)).withSrq(srq));
        TwoNodes.connect(qa, qb.qpNum(), b.gid(), 1, 1, Mtu.MTU_1024);
        TwoNodes.connect(qb, qa.qpNum(), a.gid(), 1, 1, Mtu.MTU_1024);
        srq.postRecv(RecvWr.of(1, b.mr, 0, 64));   // b.mr is in the QP's PD
        qa.postSend(SendWr.send(2, a.mr, 0, 8));
        assertThat(b.pollAll()).singleElement().satisfies(wc -> {
            assertThat(wc.wrId()).isEqualTo(1);
            assertThat(wc.status()).isEqualTo(WcStatus.LOC_PROT_ERR);
        });
    }

    @Test
    @DisplayName("UC: SEND and WRITE complete without ACKs; a SEND with no receive WQE is dropped and counted")
    void ucSendAndWrite() {
        Qp[] pair = nodes.connectedPair(QpType.UC, Mtu.MTU_512);
        a.memory.set(ValueLayout.JAVA_LONG, 0, 77);
        pair[0].postSend(SendWr.send(1, a.mr, 0, 8));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_NO_RECEIVE_WQE)).isEqualTo(1);
        pair[1].postRecv(RecvWr.of(1, b.mr, 0, 4096));
        pair[0].postSend(SendWr.send(2, a.mr, 0, 2000));
        pair[0].postSend(SendWr.rdmaWrite(3, a.mr, 0, 1500, b.mr.address() + 8192, b.mr.rkey()));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS).hasSize(2);
        assertThat(b.pollAll()).extracting(WorkCompletion::byteLen).containsExactly(2000);
        assertThat(MemorySegment.mismatch(a.memory, 0, 1500, b.memory, 8192, 9692)).isEqualTo(-1);
        assertThat(nodes.rnicB.counter(RnicCounter.ACKS_SENT)).isZero();
    }

    @Test
    @DisplayName("SRQ: two QPs share it; the limit event fires once when the count drops below the limit, then disarms")
    void sharedReceiveQueue() {
        Srq srq = b.pd.createSrq(new SrqInitAttr(8, 1, 0));
        for (int i = 0; i < 4; i++) {
            srq.postRecv(RecvWr.of(i, b.mr, i * 256L, 256));
        }
        srq.modify(new SrqAttr(0, 0, 3), EnumSet.of(SrqAttrMask.LIMIT));
        Qp qb1 = b.pd.createQp(QpInitAttr.of(QpType.RC, b.cq, QpCap.of(4, 0)).withSrq(srq));
        Qp qb2 = b.pd.createQp(QpInitAttr.of(QpType.RC, b.cq, QpCap.of(4, 0)).withSrq(srq));
        Qp qa1 = a.createQp(QpType.RC, 4);
        Qp qa2 = a.createQp(QpType.RC, 4);
        TwoNodes.connect(qa1, qb1.qpNum(), b.gid(), 1, 2, Mtu.MTU_1024);
        TwoNodes.connect(qb1, qa1.qpNum(), a.gid(), 2, 1, Mtu.MTU_1024);
        TwoNodes.connect(qa2, qb2.qpNum(), b.gid(), 1, 2, Mtu.MTU_1024);
        TwoNodes.connect(qb2, qa2.qpNum(), a.gid(), 2, 1, Mtu.MTU_1024);
        qa1.postSend(SendWr.send(1, a.mr, 0, 8));
        qa2.postSend(SendWr.send(2, a.mr, 0, 8));
        List<WorkCompletion> received = b.pollAll();
        assertThat(received).extracting(WorkCompletion::wrId).containsExactly(0L, 1L);
        assertThat(received).extracting(WorkCompletion::qpNum).containsExactly(qb1.qpNum(), qb2.qpNum());
        assertThat(b.context.pollAsyncEvent()).contains(AsyncEvent.of(AsyncEventType.SRQ_LIMIT_REACHED, srq));
        assertThat(b.context.pollAsyncEvent()).isEmpty();
        assertThat(srq.query().srqLimit()).isZero();
        assertThatThrownBy(() -> srq.modify(new SrqAttr(0, 0, 9), EnumSet.of(SrqAttrMask.LIMIT)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThatThrownBy(srq::close).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        assertThatThrownBy(() -> qb1.postRecv(RecvWr.of(1, b.mr, 0, 8)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    @DisplayName("completion channel: one event per arm; solicited-only arms wake on SE or errors; unacked events block destroy")
    void completionChannel() {
        CompChannel channel = b.context.createCompChannel();
        Cq cq = b.context.createCq(16, channel, 0);
        Qp qb = b.pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
        Qp qa = a.createQp(QpType.RC, 4);
        TwoNodes.connect(qa, qb.qpNum(), b.gid(), 1, 2, Mtu.MTU_1024);
        TwoNodes.connect(qb, qa.qpNum(), a.gid(), 2, 1, Mtu.MTU_1024);
        for (int i = 0; i < 4; i++) {
            qb.postRecv(RecvWr.of(i, b.mr, i * 64L, 64));
        }
        qa.postSend(SendWr.send(1, a.mr, 0, 8));
        assertThat(channel.getCqEvent(Duration.ZERO)).as("not armed").isEmpty();
        cq.reqNotify(true);
        qa.postSend(SendWr.send(2, a.mr, 0, 8));
        assertThat(channel.getCqEvent(Duration.ZERO)).as("armed for solicited, no SE").isEmpty();
        qa.postSend(SendWr.send(3, a.mr, 0, 8).solicited(true));
        assertThat(channel.getCqEvent(Duration.ZERO)).contains(cq);
        qa.postSend(SendWr.send(4, a.mr, 0, 8).solicited(true));
        assertThat(channel.getCqEvent(Duration.ZERO)).as("one event per arm").isEmpty();
        assertThat(cq.poll(8)).hasSize(4);
        qb.close();
        assertThatThrownBy(cq::close).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        channel.ackCqEvents(cq, 1);
        cq.close();
        channel.close();
    }

    @Test
    @DisplayName("SEND with immediate and a zero-length SEND")
    void sendWithImmediateAndEmpty() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[1].postRecv(RecvWr.of(1, b.mr, 0, 64));
        pair[1].postRecv(new RecvWr().wrId(2));
        pair[0].postSend(SendWr.send(1, a.mr, 0, 8).opcode(WrOpcode.SEND_WITH_IMM).immData(42));
        pair[0].postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true));
        List<WorkCompletion> received = b.pollAll();
        assertThat(received).extracting(WorkCompletion::immData).containsExactly(42, 0);
        assertThat(received).extracting(WorkCompletion::byteLen).containsExactly(8, 0);
        assertThat(received.get(0).has(WcFlag.WITH_IMM)).isTrue();
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsOnly(WcStatus.SUCCESS).hasSize(2);
    }
}
