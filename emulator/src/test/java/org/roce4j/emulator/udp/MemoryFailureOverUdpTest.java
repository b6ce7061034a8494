package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.time.Duration;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;

/**
 * Issue 13 over the UDP link, where the failure was first seen: a remote WRITE into memory whose arena
 * was closed after registration threw inside the RNIC on the receive thread (counted as a send
 * failure), and the WR never completed. Now it is a NAK and a completion like any other error.
 */
@Timeout(60)
class MemoryFailureOverUdpTest {

    @Test
    @DisplayName("UDP link: remote WRITE into a closed arena → REM_OP_ERR, responder ERR + QP_FATAL, nothing thrown")
    void remoteWriteIntoClosedArena() throws Exception {
        try (UdpSide a = new UdpSide("rxe0", "127.0.0.22", UdpLinkConfig.DEFAULT);
             UdpSide b = new UdpSide("rxe1", "127.0.0.23", UdpLinkConfig.DEFAULT)) {
            Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
            Arena arena = Arena.ofShared();
            Mr target = b.pd.regMr(arena.allocate(64 << 10, 4096), UdpSide.ALL_ACCESS);
            arena.close();
            qp[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 32 << 10, target.address(), target.rkey()));
            assertThat(a.pollOne().status()).isEqualTo(WcStatus.REM_OP_ERR);
            assertThat(qp[0].state()).isEqualTo(QpState.ERR);
            assertThat(qp[1].state()).isEqualTo(QpState.ERR);
            assertThat(b.context.getAsyncEvent(Duration.ofSeconds(10)))
                    .contains(AsyncEvent.of(AsyncEventType.QP_FATAL, qp[1]));
            assertThat(b.rnic.rnic().counter(RnicCounter.MEMORY_ACCESS_ERRORS)).isEqualTo(1);
            assertThat(a.rnic.linkCounters().sendFailures() + b.rnic.linkCounters().sendFailures()).isZero();
        }
    }
}
