package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.RnicCounter;
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
 * Issue 13's injection over UDP 4791: another socket on the same host, bound to the peer's IP
 * address (any port), sends hand-built RC and UC WRITEs with a valid ICRC. B (127.0.0.72) has an
 * RC and a UC QP connected to A (127.0.0.71), expecting PSN 100 from A. Whether a frame was
 * processed is read from B's counters, not from a sleep.
 */
@Timeout(60)
class SpoofedWriteTest {
    private static final String A = "127.0.0.71";
    private static final String B = "127.0.0.72";
    private static final String STRANGER = "127.0.0.73";
    /** The numbers a spoofer could count on before: the first region's key, the first two QPNs. */
    private static final int OLD_FIRST_RKEY = 0x101;
    private static final int OLD_FIRST_QPN = 17;

    private UdpSide a;
    private UdpSide b;
    private Qp[] rc;
    private Qp[] uc;
    private InetAddress toB;

    @BeforeEach
    void open() throws Exception {
        a = new UdpSide("rxe0", A, UdpLinkConfig.DEFAULT);
        b = new UdpSide("rxe1", B, UdpLinkConfig.DEFAULT);
        rc = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024); // with counted numbers B's RC QP was 17 ...
        uc = UdpSide.pair(a, b, QpType.UC, Mtu.MTU_1024); // ... and its UC QP 18
        toB = InetAddress.ofLiteral(B);
    }

    @AfterEach
    void close() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private long received() {
        return b.rnic.rnic().counter(RnicCounter.FRAMES_RECEIVED);
    }

    /** Sends the forged WRITEs from {@code from} and waits until B has taken all of them in. */
    private void spoof(String from, byte[]... transports) throws Exception {
        long before = received();
        try (RawPeer spoofer = new RawPeer(from)) {
            for (byte[] t : transports) {
                spoofer.send(spoofer.datagram(t, toB, 0), toB);
            }
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (received() < before + transports.length) {
            assertThat(System.nanoTime()).as("B received the forged frames").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    private static byte[] bytes(int length, int value) {
        byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    private void assertUntouched(long offset, int length) {
        for (int i = 0; i < length; i++) {
            assertThat(b.memory.get(ValueLayout.JAVA_BYTE, offset + i)).as("B's byte %d", offset + i).isZero();
        }
    }

    /** The real peer's WRITE with immediate of 64 bytes to B's offset: must complete and land. */
    private void realWrite(Qp[] pair, long offset, int seed) {
        UdpSide.fill(a.memory, offset, 64, seed);
        pair[1].postRecv(RecvWr.of(7, b.mr, 0, 0));
        pair[0].postSend(SendWr.rdmaWrite(8, a.mr, offset, 64, b.mr.address() + offset, b.mr.rkey())
                .opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(1));
        WorkCompletion atB = b.pollOne();
        assertThat(atB.status()).isEqualTo(WcStatus.SUCCESS);
        if (pair[0].type() == QpType.RC) {
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
        } else {
            a.pollOne();
        }
        UdpSide.assertSameBytes(a.memory, offset, b.memory, offset, 64);
    }

    @Test
    @DisplayName("Issue 13: UC WRITEs at several PSNs and an RC WRITE at the expected PSN, rkey 0x101 to QPN 17/18, "
            + "from the peer's IP: nothing written; the peer's next WRITEs are executed")
    void theIssuesInjectionWritesNothing() throws Exception {
        long va = b.mr.address();
        spoof(A,
                RawPeer.writeOnly(false, OLD_FIRST_QPN, 100, va, OLD_FIRST_RKEY, bytes(64, 0xEE)),
                RawPeer.writeOnly(true, OLD_FIRST_QPN + 1, 100, va + 64, OLD_FIRST_RKEY, bytes(64, 0xEE)),
                RawPeer.writeOnly(true, OLD_FIRST_QPN + 1, 5000, va + 128, OLD_FIRST_RKEY, bytes(64, 0xEE)),
                RawPeer.writeOnly(true, OLD_FIRST_QPN + 1, 0xFFFFF0, va + 192, OLD_FIRST_RKEY, bytes(64, 0xEE)));
        assertUntouched(0, 256);
        assertThat(b.rnic.rnic().counter(RnicCounter.DROPPED_UNKNOWN_QP)).as("no QP 17 or 18").isEqualTo(4);
        assertThat(rc[1].state()).isEqualTo(QpState.RTS);
        realWrite(rc, 0, 1);
        realWrite(uc, 64, 2);
    }

    @Test
    @DisplayName("Knowing the QPNs but guessing the rkey (0x101 and neighbours): nothing written. UC drops the "
            + "message; RC NAKs remote access error at the expected PSN and its QP goes to ERR, as rxe")
    void aGuessedRkeyWritesNothing() throws Exception {
        long va = b.mr.address();
        int ucQpn = uc[1].qpNum();
        int rcQpn = rc[1].qpNum();
        spoof(A,
                RawPeer.writeOnly(true, ucQpn, 100, va, OLD_FIRST_RKEY, bytes(64, 0xEE)),
                RawPeer.writeOnly(true, ucQpn, 101, va, OLD_FIRST_RKEY + 1, bytes(64, 0xEE)),
                RawPeer.writeOnly(true, ucQpn, 102, va, b.mr.rkey() ^ 0x100, bytes(64, 0xEE)));
        assertUntouched(0, 64);
        assertThat(b.rnic.rnic().counter(RnicCounter.DROPPED_UC_MESSAGE)).isEqualTo(3);
        realWrite(uc, 64, 3); // the UC peer starts its next message at PSN 100: ahead of nothing, taken

        spoof(A, RawPeer.writeOnly(false, rcQpn, 100, va, OLD_FIRST_RKEY, bytes(64, 0xEE)));
        assertUntouched(0, 64);
        assertThat(b.rnic.rnic().counter(RnicCounter.NAKS_SENT)).isEqualTo(1);
        assertThat(rc[1].state()).as("rxe_resp.c: rxe_responder, RESPST_ERR_RKEY_VIOLATION on RC is a class C error: the responder's QP goes to ERR").isEqualTo(QpState.ERR);
        // The real peer is not left with a silent loss: its next WRITE fails visibly.
        UdpSide.fill(a.memory, 0, 64, 4);
        rc[0].postSend(SendWr.rdmaWrite(9, a.mr, 0, 64, va, b.mr.rkey()));
        assertThat(a.pollOne().status()).isNotEqualTo(WcStatus.SUCCESS);
        assertUntouched(0, 64);
    }

    @Test
    @DisplayName("rxe check_addr: a WRITE with the right QPN, PSN and rkey from an address that is not the peer's "
            + "is dropped before any other check: nothing written, no NAK, the QPs stay RTS")
    void aStrangersFrameIsDroppedFirst() throws Exception {
        long va = b.mr.address();
        spoof(STRANGER,
                RawPeer.writeOnly(false, rc[1].qpNum(), 100, va, b.mr.rkey(), bytes(64, 0xEE)),
                RawPeer.writeOnly(true, uc[1].qpNum(), 100, va + 64, b.mr.rkey(), bytes(64, 0xEE)),
                RawPeer.writeOnly(false, rc[1].qpNum(), 100, va, 0x7777, bytes(64, 0xEE)));
        assertUntouched(0, 128);
        assertThat(b.rnic.rnic().counter(RnicCounter.DROPPED_WRONG_ADDRESS)).isEqualTo(3);
        assertThat(b.rnic.rnic().counter(RnicCounter.FRAMES_SENT)).as("no NAK, no ACK").isZero();
        assertThat(rc[1].state()).isEqualTo(QpState.RTS);
        realWrite(rc, 0, 5);
        realWrite(uc, 64, 6);
    }
}
