package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.WcStatus;

/**
 * The names, values and wording of completion statuses and async events, as rdma-core's
 * libibverbs/verbs.h and verbs.c define them (ibv_wc_status_str, ibv_event_type_str), so that logs
 * read like perftest's and the ibv_*_pingpong examples'.
 */
class WcStatusTest {
    /** rdma-core libibverbs/verbs.c, ibv_wc_status_str(), in enum ibv_wc_status order (IBV_WC_SUCCESS = 0). */
    private static final String[][] IBV_WC_STATUS_STR = {
            {"SUCCESS", "success"},
            {"LOC_LEN_ERR", "local length error"},
            {"LOC_QP_OP_ERR", "local QP operation error"},
            {"LOC_EEC_OP_ERR", "local EE context operation error"},
            {"LOC_PROT_ERR", "local protection error"},
            {"WR_FLUSH_ERR", "Work Request Flushed Error"},
            {"MW_BIND_ERR", "memory management operation error"},
            {"BAD_RESP_ERR", "bad response error"},
            {"LOC_ACCESS_ERR", "local access error"},
            {"REM_INV_REQ_ERR", "remote invalid request error"},
            {"REM_ACCESS_ERR", "remote access error"},
            {"REM_OP_ERR", "remote operation error"},
            {"RETRY_EXC_ERR", "transport retry counter exceeded"},
            {"RNR_RETRY_EXC_ERR", "RNR retry counter exceeded"},
            {"LOC_RDD_VIOL_ERR", "local RDD violation error"},
            {"REM_INV_RD_REQ_ERR", "remote invalid RD request"},
            {"REM_ABORT_ERR", "aborted error"},
            {"INV_EECN_ERR", "invalid EE context number"},
            {"INV_EEC_STATE_ERR", "invalid EE context state"},
            {"FATAL_ERR", "fatal error"},
            {"RESP_TIMEOUT_ERR", "response timeout error"},
            {"GENERAL_ERR", "general error"},
            {"TM_ERR", "TM error"},
            {"TM_RNDV_INCOMPLETE", "TM software rendezvous"},
    };

    @Test
    @DisplayName("rdma-core ibv_wc_status_str: describe() prints the libibverbs wording for every status")
    void describeIsIbvWcStatusStr() {
        Map<String, String> expected = new LinkedHashMap<>();
        for (String[] row : IBV_WC_STATUS_STR) {
            expected.put(row[0], row[1]);
        }
        Map<String, String> actual = new LinkedHashMap<>();
        for (WcStatus status : WcStatus.values()) {
            actual.put(status.name(), status.describe());
        }
        assertThat(actual).containsExactlyEntriesOf(expected);
    }

    @Test
    @DisplayName("rdma-core verbs.h enum ibv_wc_status: same names at the same values, of() inverts value()")
    void valuesAreIbvWcStatusValues() {
        for (int value = 0; value < IBV_WC_STATUS_STR.length; value++) {
            WcStatus status = WcStatus.of(value);
            assertThat(status.name()).isEqualTo(IBV_WC_STATUS_STR[value][0]);
            assertThat(status.value()).isEqualTo(value);
        }
        assertThat(WcStatus.values()).hasSize(IBV_WC_STATUS_STR.length);
    }

    @Test
    @DisplayName("rdma-core ibv_event_type_str: AsyncEventType.describe() prints the libibverbs wording")
    void asyncEventWordingIsIbvEventTypeStr() {
        String[] expected = {
                "CQ error", "local work queue catastrophic error", "invalid request local work queue error",
                "local access violation work queue error", "communication established", "send queue drained",
                "path migrated", "path migration request error", "local catastrophic error", "port active",
                "port error", "LID change", "P_Key change", "SM change", "SRQ catastrophic error",
                "SRQ limit reached", "last WQE reached", "client reregistration", "GID table change"};
        assertThat(java.util.Arrays.stream(AsyncEventType.values()).map(AsyncEventType::describe))
                .containsExactly(expected);
    }

    @Test
    @DisplayName("WorkCompletion.toString names the status as ibv_wc_status_str does")
    void workCompletionPrintsStatusText() {
        var wc = new org.roce4j.verbs.WorkCompletion(7, WcStatus.REM_ACCESS_ERR, org.roce4j.verbs.WcOpcode.RDMA_WRITE,
                0, 0, 0, 0, 0x11, 0, 0, 0, 0, 0, 0);
        assertThat(wc.toString()).contains("wr_id=7").contains("REM_ACCESS_ERR (remote access error)");
    }
}
