package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The device profiles' answers, each the rule of the specification or of the device it models. */
class DeviceProfileTest {
    @Test
    @DisplayName("IBTA 9.7.6.1.3: retry_cnt 7 is seven retries, never forever")
    void ibtaRetryCountSevenIsSevenRetries() {
        for (int retryCnt = 0; retryCnt <= 7; retryCnt++) {
            assertThat(DeviceProfile.IBTA.retriesForever(retryCnt)).as("retry_cnt %d", retryCnt).isFalse();
        }
    }

    @Test
    @DisplayName("rxe_comp.c rxe_completer: retry_cnt 7 retries forever, 0..6 run out")
    void rxeRetryCountSevenIsForever() {
        assertThat(DeviceProfile.RXE.retriesForever(7)).isTrue();
        for (int retryCnt = 0; retryCnt < 7; retryCnt++) {
            assertThat(DeviceProfile.RXE.retriesForever(retryCnt)).as("retry_cnt %d", retryCnt).isFalse();
        }
    }
}
