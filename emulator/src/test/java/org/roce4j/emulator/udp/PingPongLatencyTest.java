package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;

/** RC ping-pong between two UDP devices on lo: the round trip must not wait for timers. */
@Timeout(120)
class PingPongLatencyTest extends LoopbackPair {
    @Test
    @DisplayName("1000 RC 64-byte SEND ping-pongs after a warm-up: no local ACK timeout (timeout 14, 67 ms), no retransmission")
    void pingPong() {
        Qp[] qp = UdpSide.pair(a, b, QpType.RC, Mtu.MTU_1024);
        pingPongs(qp, 100); // warm-up: class loading and JIT on the first frames can outlast the ACK timeout
        long[] timeouts = {counter(a, RnicCounter.LOCAL_ACK_TIMEOUTS), counter(b, RnicCounter.LOCAL_ACK_TIMEOUTS)};
        long[] resent = {counter(a, RnicCounter.RETRANSMITTED_PACKETS), counter(b, RnicCounter.RETRANSMITTED_PACKETS)};
        int n = 1000;
        long[] rtt = pingPongs(qp, n);
        long[] sorted = rtt.clone();
        java.util.Arrays.sort(sorted);
        System.out.printf("RC ping-pong over UDP lo, %d round trips: p50 %d us p90 %d us p99 %d us max %d us, mean %d us%n",
                n, sorted[n / 2] / 1000, sorted[n * 9 / 10] / 1000, sorted[n * 99 / 100] / 1000, sorted[n - 1] / 1000,
                java.util.Arrays.stream(rtt).sum() / n / 1000);
        UdpSide[] sides = {a, b};
        for (int i = 0; i < 2; i++) {
            UdpSide s = sides[i];
            System.out.println(s.rnic + " " + s.rnic.rnic().counters() + " " + s.rnic.linkCounters());
            assertThat(counter(s, RnicCounter.LOCAL_ACK_TIMEOUTS)).as("ACK timeouts on " + s.rnic).isEqualTo(timeouts[i]);
            assertThat(counter(s, RnicCounter.RETRANSMITTED_PACKETS)).as("retransmissions on " + s.rnic).isEqualTo(resent[i]);
        }
    }

    static long counter(UdpSide side, RnicCounter counter) {
        return side.rnic.rnic().counter(counter);
    }

    static long[] pingPongs(Qp[] qp, int n) {
        return pingPongs(qp, n, a, b);
    }

    /** {@code n} SEND ping-pongs from {@code a} to {@code b} and back; the round trips' durations. */
    static long[] pingPongs(Qp[] qp, int n, UdpSide a, UdpSide b) {
        long[] rtt = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            qp[1].postRecv(RecvWr.of(10 + i, b.mr, 0, 64));
            qp[0].postRecv(RecvWr.of(20 + i, a.mr, 4096, 64));
            qp[0].postSend(SendWr.send(i, a.mr, 0, 64));
            // a: send completion and the pong; b: the ping, then the pong's send completion
            assertThat(b.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            qp[1].postSend(SendWr.send(i, b.mr, 0, 64));
            for (int k = 0; k < 2; k++) {
                assertThat(a.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            }
            assertThat(b.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            rtt[i] = System.nanoTime() - t0;
        }
        return rtt;
    }
}
