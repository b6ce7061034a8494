package org.roce4j.emulator;

import org.roce4j.emulator.verbs.EmulatedCq;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DeviceProfile#RXE_6_12}: Linux rxe decrements retry_cnt only when it
 * is not 7 ({@code rxe_comp.c}), so a QP with retry_cnt 7 retries forever; IBTA's reading (the
 * default, {@code LocalAckTimeoutTest}) gives up after seven. Values below 7 count down either way.
 */
class RxeRetryCompatibilityTest {
    private final TwoNodes nodes = new TwoNodes(Fabric.deterministic(), DeviceProfile.RXE_6_12);
    private final FaultScript script = new FaultScript();

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    @DisplayName("rxe: retry_cnt 7 retries forever — after 100 timeouts the WRITE is still outstanding, and it completes "
            + "once the link heals")
    void retryCountSevenRetriesForever() {
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.timeout(8).retryCnt(7), rtr -> { }, rts -> { });
        nodes.fabric.filter(script.dropFirst(100, f -> f.fromA()));
        pair[0].postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, 64, nodes.b.mr.address(), nodes.b.mr.rkey()));

        nodes.fabric.runFor(Duration.ofNanos(99 * (4096L << 8))); // 99 timeouts of 1 ms, not polling
        assertThat(((EmulatedCq) nodes.a.cq).size()).as("no completion while every try is lost").isZero();
        assertThat(script.requestPsnsFromA()).hasSizeGreaterThanOrEqualTo(99);

        assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(script.requestPsnsFromA()).hasSize(101);
    }

    @Test
    @DisplayName("rxe: retry_cnt below 7 still counts down — retry_cnt 2 gives RETRY_EXC_ERR after 3 transmissions")
    void retryCountBelowSevenCountsDown() {
        Qp[] pair = nodes.rcPair(Mtu.MTU_1024, rtr -> { }, rts -> rts.timeout(8).retryCnt(2), rtr -> { }, rts -> { });
        nodes.fabric.filter(script.dropAll(f -> f.fromA()));
        pair[0].postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, 64, nodes.b.mr.address(), nodes.b.mr.rkey()));

        assertThat(nodes.a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.RETRY_EXC_ERR);
        assertThat(script.requestPsnsFromA()).hasSize(3);
    }
}
