package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * QP 1 is the node's General Services Interface, not an EmulatedQp: frames to it reach the
 * communication manager after the GSI's checks (rxe_recv.c check_keys: Q_Key 0x80010000 on QP 1;
 * a 256-byte MAD in a UD SEND Only), and what fails them is dropped and counted.
 */
class GsiChecksTest {
    private static final int UD_SEND_ONLY = 0x64;
    private static final int RC_SEND_ONLY = 0x04;
    /** An RC SEND carries no DETH. */
    private static final int NO_DETH = 0;
    private final TwoNodes nodes = new TwoNodes();
    private final ForgedFrames forged = new ForgedFrames();

    @AfterEach
    void close() {
        nodes.close();
    }

    private static byte[] deth(int qkey, int sourceQp) {
        return new byte[] {(byte) (qkey >>> 24), (byte) (qkey >>> 16), (byte) (qkey >>> 8), (byte) qkey,
            0, (byte) (sourceQp >>> 16), (byte) (sourceQp >>> 8), (byte) sourceQp};
    }

    private void deliver(int opcode, int pkey, byte[] headers, int payloadLength) {
        byte[] transport = ForgedFrames.transport(opcode, 1, 0, true, headers, new byte[payloadLength]);
        transport[2] = (byte) (pkey >>> 8);
        transport[3] = (byte) pkey;
        byte[] frame = forged.frame(transport);
        nodes.fabric.locked(() -> nodes.rnicB.rnic().onFrame(frame, 0, frame.length, 0));
    }

    @Test
    @DisplayName("IBTA 13.5.1: a UD SEND Only of 256 bytes with Q_Key 0x80010000 and P_Key 0xFFFF reaches the CM, not an unknown QP")
    void madToQp1ReachesTheCommunicationManager() {
        deliver(UD_SEND_ONLY, 0xFFFF, deth(0x80010000, 1), 256);
        assertThat(nodes.rnicB.counter(RnicCounter.MADS_RECEIVED)).isEqualTo(1);
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_UNKNOWN_QP)).isZero();
        // Its bytes are no CM MAD (all zero: base version 0): the CM drops it as one it cannot decode.
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_BAD_MAD)).isEqualTo(1);
    }

    /** A packet to QP 1 that fails one of the GSI's checks, and the counter that says so. */
    enum Refused {
        // rxe check_keys: the Q_Key of QP 1 is 0x80010000.
        WRONG_QKEY(UD_SEND_ONLY, 0xFFFF, 0x11111111, 256, RnicCounter.DROPPED_QKEY_VIOLATION),
        // The GSI takes P_Key 0xFFFF only: 0x7FFF (limited membership) is a bad P_Key.
        LIMITED_PKEY(UD_SEND_ONLY, 0x7FFF, 0x80010000, 256, RnicCounter.DROPPED_BAD_PKEY),
        // A MAD is 256 bytes in a UD SEND Only.
        RC_SEND(RC_SEND_ONLY, 0xFFFF, GsiChecksTest.NO_DETH, 256, RnicCounter.DROPPED_BAD_MAD),
        SHORT_MAD(UD_SEND_ONLY, 0xFFFF, 0x80010000, 200, RnicCounter.DROPPED_BAD_MAD);

        final int opcode;
        final int pkey;
        final int qkey;
        final int length;
        final RnicCounter counter;

        Refused(int opcode, int pkey, int qkey, int length, RnicCounter counter) {
            this.opcode = opcode;
            this.pkey = pkey;
            this.qkey = qkey;
            this.length = length;
            this.counter = counter;
        }
    }

    @ParameterizedTest(name = "{0}: dropped and counted, never a MAD received")
    @EnumSource(Refused.class)
    void refusedPacketsAreDroppedAndCounted(Refused packet) {
        deliver(packet.opcode, packet.pkey, packet.qkey == NO_DETH ? new byte[0] : deth(packet.qkey, 1), packet.length);
        assertThat(nodes.rnicB.counter(packet.counter)).isEqualTo(1);
        assertThat(nodes.rnicB.counter(RnicCounter.MADS_RECEIVED)).isZero();
    }
}
