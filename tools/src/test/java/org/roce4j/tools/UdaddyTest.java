package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * roce4j udaddy, server and client in two threads on the emulator's default fabric, resolved with
 * SIDR by the emulator's rdma_cm: udaddy.c's lines and return status.
 */
class UdaddyTest {
    @Test
    @DisplayName("udaddy -C 10 -S 100: the client's SIDR resolves the server's QPN and Q_Key, ten UD SENDs with immediate "
            + "each way (the server answers through the first receive's GRH), udaddy's lines, return status 0")
    void bothRoles() throws Exception {
        CmToolRuns.Pair run = CmToolRuns.pair(new String[] {"udaddy", "-b", "10.0.0.1", "--port", "0", "-C", "10", "-S", "100"},
                "--port", "udaddy", "-s", "10.0.0.1", "-b", "10.0.0.2", "-C", "10", "-S", "100");

        assertThat(run.client().exit()).as(run.client().toString()).isZero();
        assertThat(run.server().exit()).as(run.server().toString()).isZero();
        assertThat(run.server().lines()).containsExactly("udaddy: starting server", "receiving data transfers",
                "sending replies", "data transfers complete", "test complete", "return status 0");
        assertThat(run.client().lines()).containsExactly("udaddy: starting client", "udaddy: connecting",
                "initiating data transfers", "receiving data transfers", "data transfers complete", "test complete",
                "return status 0");
        assertThat(run.client().err()).isEmpty();
        assertThat(run.server().err()).isEmpty();
    }

    @Test
    @DisplayName("udaddy -c 3: three UD ids resolved side by side, each with its own QP and its ten messages each way")
    void threeConnections() throws Exception {
        CmToolRuns.Pair run = CmToolRuns.pair(new String[] {"udaddy", "-b", "10.0.0.1", "--port", "0", "-c", "3", "-C", "10"},
                "--port", "udaddy", "-s", "10.0.0.1", "-b", "10.0.0.2", "-c", "3", "-C", "10");

        assertThat(run.client().exit()).as(run.client().toString()).isZero();
        assertThat(run.server().exit()).as(run.server().toString()).isZero();
        assertThat(run.client().lines()).contains("data transfers complete", "return status 0");
        assertThat(run.server().lines()).contains("data transfers complete", "return status 0");
    }

    @Test
    @DisplayName("udaddy -S larger than the port's active MTU (1024): 'message_size 2000 is larger than active mtu 1024', "
            + "then the failed connection's lines")
    void messageLargerThanMtu() {
        CmToolRuns.Result client = CmToolRuns.run("udaddy", "-s", "10.0.0.1", "-b", "10.0.0.2", "--port", "9998", "-S", "2000");

        assertThat(client.lines()).as(client.toString()).contains("udaddy: message_size 2000 is larger than active mtu 1024", "test complete");
        assertThat(client.lines().getLast()).isEqualTo("return status -22");
        assertThat(client.exit()).isEqualTo(-22 & 0xFF);
    }

    @Test
    @DisplayName("udaddy -s to a port nobody listens on: the SIDR_REP's status (no such service) is a failed connection, "
            + "'udaddy: event: RDMA_CM_EVENT_...' and a non-zero return status")
    void noServer() {
        CmToolRuns.Result client = CmToolRuns.run("udaddy", "-s", "10.0.0.1", "-b", "10.0.0.2", "--port", "9997", "-C", "1");

        assertThat(client.lines()).as(client.toString()).anyMatch(line -> line.matches("udaddy: event: RDMA_CM_EVENT_(UNREACHABLE|REJECTED), error: -?\\d+"));
        assertThat(client.lines().getLast()).matches("return status -?[1-9]\\d*");
        assertThat(client.exit()).isNotZero();
    }
}
