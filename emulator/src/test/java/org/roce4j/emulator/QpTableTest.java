package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;

/**
 * The RNIC's QP table, which finds a packet's QP and its responder by the QP number: a number it holds no live QP
 * for — before its first slot, past its last, a destroyed QP's — is dropped and counted (rxe_recv.c: no QP by
 * that number), never an error of the RNIC's.
 */
class QpTableTest {
    private static final int RC_SEND_ONLY = 0x04;
    private final TwoNodes nodes = new TwoNodes();
    private final ForgedFrames forged = new ForgedFrames();

    @AfterEach
    void close() {
        nodes.close();
    }

    private void sendTo(int qpn) {
        byte[] frame = forged.frame(ForgedFrames.transport(RC_SEND_ONLY, qpn, 0, true, new byte[0], new byte[8]));
        nodes.fabric.locked(() -> nodes.rnicB.rnic().onFrame(frame, 0, frame.length, 0));
    }

    @Test
    @DisplayName("frames to every QP number around the table's slots but the live QP's: each dropped as to an unknown QP")
    void numbersWithoutALiveQpAreDroppedAndCounted() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        int live = pair[1].qpNum();
        pair[0].close();
        Qp destroyed = pair[1];
        Qp second = nodes.connectedPair(QpType.RC, Mtu.MTU_1024)[1];
        destroyed.close();

        int sent = 0;
        for (int qpn = live - 64; qpn <= live + 64; qpn++) { // the table holds 8 slots here: its end is in range
            if (qpn != second.qpNum() && qpn > 1) {
                sendTo(qpn);
                sent++;
            }
        }

        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_UNKNOWN_QP)).isEqualTo(sent);
        assertThat(nodes.rnicB.counter(RnicCounter.PACKETS_RECEIVED)).as("none reached a QP").isZero();
    }
}
