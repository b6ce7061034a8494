package org.roce4j.wire.mad;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The numbers of REJ reasons and SIDR_REP statuses are IBTA's (and ib_cm.h's), looked up both ways. */
class RejectReasonTest {

    @Test
    @DisplayName("ib_cm.h enum ib_cm_rej_reason: NO_QP 1, TIMEOUT 4, INVALID_COMM_ID 6, INVALID_SERVICE_ID 8, STALE_CONN 10, CONSUMER_DEFINED 28")
    void rejectReasonsHaveIbtaNumbers() {
        assertThat(RejectReason.NO_QP.code()).isEqualTo(1);
        assertThat(RejectReason.TIMEOUT.code()).isEqualTo(4);
        assertThat(RejectReason.UNSUPPORTED.code()).isEqualTo(5);
        assertThat(RejectReason.INVALID_COMM_ID.code()).isEqualTo(6);
        assertThat(RejectReason.INVALID_SERVICE_ID.code()).isEqualTo(8);
        assertThat(RejectReason.STALE_CONN.code()).isEqualTo(10);
        assertThat(RejectReason.CONSUMER_DEFINED.code()).isEqualTo(28);
        assertThat(RejectReason.VENDOR_OPTION_NOT_SUPPORTED.code()).isEqualTo(35);
        assertThat(RejectReason.CONSUMER_DEFINED.description()).isEqualTo("consumer reject");
    }

    @Test
    @DisplayName("IBTA table 109: every reason is found by its number; 0, 34 and 36 are reserved")
    void rejectReasonsRoundTripThroughTheirNumber() {
        for (RejectReason reason : RejectReason.values()) {
            assertThat(RejectReason.of(reason.code())).contains(reason);
        }
        assertThat(RejectReason.of(0)).isEmpty();
        assertThat(RejectReason.of(34)).isEmpty();
        assertThat(RejectReason.of(36)).isEmpty();
    }

    @Test
    @DisplayName("IBTA table 121 / ib_cm.h enum ib_cm_sidr_status: SUCCESS 0 … UNSUPPORTED_VERSION 5, found by number; 6 is reserved")
    void sidrStatusesHaveIbtaNumbers() {
        assertThat(SidrStatus.SUCCESS.code()).isZero();
        assertThat(SidrStatus.UNSUPPORTED.code()).isEqualTo(1);
        assertThat(SidrStatus.REJECT.code()).isEqualTo(2);
        assertThat(SidrStatus.NO_QP.code()).isEqualTo(3);
        assertThat(SidrStatus.REDIRECT.code()).isEqualTo(4);
        assertThat(SidrStatus.UNSUPPORTED_VERSION.code()).isEqualTo(5);
        for (SidrStatus status : SidrStatus.values()) {
            assertThat(SidrStatus.of(status.code())).contains(status);
        }
        assertThat(SidrStatus.of(6)).isEmpty();
        assertThat(SidrStatus.REJECT.description()).isEqualTo("rejected by the service provider");
    }
}
