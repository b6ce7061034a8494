package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * roce4j rping, server and client in two threads on the emulator's default fabric (rxe0 10.0.0.1,
 * rxe1 10.0.0.2), connected by the emulator's rdma_cm: rping.c's lines and exit codes.
 */
class RpingTest {
    /** rping_test_client's text for one ping, built here independently of RpingData: what %s prints (up to the NUL). */
    static String pingText(int ping, int size) {
        StringBuilder text = new StringBuilder("rdma-ping-" + ping + ": ");
        char c = (char) ('A' + ping % 58);
        while (text.length() < size - 1) {
            text.append(c);
            c = c == 'z' ? 'A' : (char) (c + 1);
        }
        return text.toString();
    }

    @ParameterizedTest(name = "-S {0}")
    @ValueSource(ints = {26, 64, 100, 4000, 65535})
    @DisplayName("rping -C 10 -V -v: every ping read by the server, written back and verified by the client; "
            + "the server ends on the client's disconnect (rping.c's lines), both exit 0")
    void pingsOfSeveralSizes(int size) throws Exception {
        String s = Integer.toString(size);
        CmToolRuns.Pair run = CmToolRuns.pair(new String[] {"rping", "-s", "-a", "10.0.0.1", "-p", "0", "-C", "10", "-V", "-v", "-S", s},
                "-p", "rping", "-c", "-a", "10.0.0.1", "-I", "10.0.0.2", "-C", "10", "-V", "-v", "-S", s);

        assertThat(run.client().exit()).as(run.client().toString()).isZero();
        assertThat(run.server().exit()).as(run.server().toString()).isZero();
        List<String> clientLines = new ArrayList<>();
        List<String> serverLines = new ArrayList<>();
        for (int ping = 0; ping < 10; ping++) {
            clientLines.add("ping data: " + pingText(ping, size));
            serverLines.add("server ping data: " + pingText(ping, size));
        }
        assertThat(run.client().lines()).containsExactlyElementsOf(clientLines);
        assertThat(run.server().lines()).containsExactlyElementsOf(serverLines);
        // The server's loop waits for the next start info and finds the disconnect instead (state 10).
        assertThat(run.server().err()).isEqualTo("server DISCONNECT EVENT...\nwait for RDMA_READ_ADV state 10\n");
        assertThat(run.client().errLines()).allMatch(line -> line.equals("client DISCONNECT EVENT..."));
    }

    @ParameterizedTest(name = "server -q {0}, client -q {1}")
    @org.junit.jupiter.params.provider.CsvSource({"true, true", "false, true", "true, false"})
    @DisplayName("rping -q (rping_self_modify_qp): a QP of ibv_create_qp moved with rdma_init_qp_attr — the client on "
            + "CONNECT_RESPONSE then rdma_establish, the server before rdma_accept; either side alone or both: "
            + "-C 10 -V runs as without -q, both exit 0")
    void selfCreatedQp(boolean serverQ, boolean clientQ) throws Exception {
        List<String> server = new ArrayList<>(List.of("rping", "-s", "-a", "10.0.0.1", "-p", "0", "-C", "10", "-V", "-v"));
        List<String> client = new ArrayList<>(List.of("rping", "-c", "-a", "10.0.0.1", "-I", "10.0.0.2", "-C", "10",
                "-V", "-v"));
        if (serverQ) {
            server.add("-q");
        }
        if (clientQ) {
            client.add("-q");
        }
        CmToolRuns.Pair run = CmToolRuns.pair(server.toArray(String[]::new), "-p", client.toArray(String[]::new));

        assertThat(run.client().exit()).as(run.client().toString()).isZero();
        assertThat(run.server().exit()).as(run.server().toString()).isZero();
        List<String> clientLines = new ArrayList<>();
        for (int ping = 0; ping < 10; ping++) {
            clientLines.add("ping data: " + pingText(ping, 64));
        }
        assertThat(run.client().lines()).containsExactlyElementsOf(clientLines);
        assertThat(run.server().lines()).hasSize(10);
        assertThat(run.client().errLines()).allMatch(line -> line.equals("client DISCONNECT EVENT..."));
    }

    @Test
    @DisplayName("rping -V catches an echo that differs from the ping (a server spoiling what it writes, "
            + "--corrupt-write-for-test): 'data mismatch!', 'rping client failed: -1', exit 255; no ping line is printed")
    void validationCatchesBadEcho() throws Exception {
        CmToolRuns.Pair run = CmToolRuns.pair(new String[] {"rping", "-s", "-a", "10.0.0.1", "-p", "0", "-C", "3",
                    "--corrupt-write-for-test"},
                "-p", "rping", "-c", "-a", "10.0.0.1", "-I", "10.0.0.2", "-C", "3", "-V", "-v");

        assertThat(run.client().exit()).as(run.client().toString()).isEqualTo(255);
        assertThat(run.client().errLines()).startsWith("data mismatch!", "rping client failed: -1");
        assertThat(run.client().out()).isEmpty();
        assertThat(run.server().exit()).as(run.server().toString()).isZero();
    }

    @Test
    @DisplayName("rping -c with nobody listening on the port: the REJ (reason 8, invalid service ID) is "
            + "'cma event RDMA_CM_EVENT_REJECTED, error 8', then the main thread's lines; exit 255 (the CM thread's exit(-1))")
    void noServerIsRejected() {
        CmToolRuns.Result client = CmToolRuns.run("rping", "-c", "-a", "10.0.0.1", "-I", "10.0.0.2", "-p", "9999", "-C", "1");

        assertThat(client.exit()).as(client.toString()).isEqualTo(255);
        assertThat(client.err()).isEqualTo("cma event RDMA_CM_EVENT_REJECTED, error 8\n"
                + "wait for CONNECTED state 4\nconnect error -1\n");
        assertThat(client.out()).isEmpty();
    }

    @Test
    @DisplayName("rping -c to an address no device has: ADDR_ERROR with a negative errno, "
            + "'waiting for addr/route resolution state 1', exit 255 — no hang")
    void unreachableAddress() {
        CmToolRuns.Result client = CmToolRuns.run("rping", "-c", "-a", "10.0.0.99", "-I", "10.0.0.2", "-C", "1");

        assertThat(client.exit()).as(client.toString()).isEqualTo(255);
        assertThat(client.errLines()).hasSize(2);
        assertThat(client.errLines().get(0)).matches("cma event RDMA_CM_EVENT_ADDR_ERROR, error -\\d+");
        assertThat(client.errLines().get(1)).isEqualTo("waiting for addr/route resolution state 1");
    }

    @Test
    @DisplayName("rping -c -I with a source address no device has: perror's 'rdma_resolve_addr: ...' line, exit 255")
    void sourceAddressNobodyHas() {
        CmToolRuns.Result client = CmToolRuns.run("rping", "-c", "-a", "10.0.0.1", "-I", "10.9.9.9", "-C", "1");

        assertThat(client.exit()).as(client.toString()).isEqualTo(255);
        assertThat(client.err()).startsWith("rdma_resolve_addr: ").endsWith("\n");
        assertThat(client.errLines()).hasSize(1);
    }

    @Test
    @DisplayName("-d NAME: the device librdmacm picks by address must be NAME — -d rxe1 with -I 10.0.0.2 runs, "
            + "-d rxe0 with -I 10.0.0.2 says whose address it is and fails with 255")
    void deviceByName() throws Exception {
        CmToolRuns.Result wrong = CmToolRuns.run("rping", "-c", "-d", "rxe0", "-a", "10.0.0.1", "-I", "10.0.0.2", "-C", "1");
        assertThat(wrong.exit()).as(wrong.toString()).isEqualTo(255);
        assertThat(wrong.err()).isEqualTo("-d rxe0: the address 10.0.0.2 belongs to rxe1, not rxe0 "
                + "(librdmacm picks the device by address)\n");

        CmToolRuns.Pair run = CmToolRuns.pair(new String[] {"rping", "-s", "-d", "rxe0", "-a", "10.0.0.1", "-p", "0", "-C", "3"},
                "-p", "rping", "-c", "-d", "rxe1", "-a", "10.0.0.1", "-I", "10.0.0.2", "-C", "3", "-V");
        assertThat(run.client().exit()).as(run.client().toString()).isZero();
        assertThat(run.server().exit()).as(run.server().toString()).isZero();
    }

    @Test
    @DisplayName("rping -P: a persistent server serves one client after another, each on its own connection")
    void persistentServer() throws Exception {
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Future<CmToolRuns.Result> server = CmToolRuns.start(port, "rping", "-s", "-P", "-a", "10.0.0.1", "-p", "0", "-v");
        String listening = Integer.toString(port.get(30, TimeUnit.SECONDS));
        for (int client = 0; client < 2; client++) {
            CmToolRuns.Result result = CmToolRuns.run("rping", "-c", "-a", "10.0.0.1", "-I", "10.0.0.2", "-p", listening,
                    "-C", "4", "-V", "-v");
            assertThat(result.exit()).as(result.toString()).isZero();
            assertThat(result.lines()).hasSize(4).allMatch(line -> line.startsWith("ping data: rdma-ping-"));
        }
        server.cancel(true);
    }

    @Test
    @DisplayName("rping -S below RPING_MIN_BUFSIZE: 'Invalid size 10 (valid range is 26 to 65536)', exit 22 (EINVAL)")
    void sizeOutOfRange() {
        CmToolRuns.Result result = CmToolRuns.run("rping", "-c", "-a", "10.0.0.1", "-S", "10");

        assertThat(result.exit()).isEqualTo(22);
        assertThat(result.err()).isEqualTo("Invalid size 10 (valid range is 26 to 65536)\n");
    }

    @Test
    @DisplayName("rping without -s or -c: a usage error, exit 2")
    void neitherServerNorClient() {
        CmToolRuns.Result result = CmToolRuns.run("rping", "-a", "10.0.0.1");

        assertThat(result.exit()).isEqualTo(2);
        assertThat(result.err()).startsWith("roce4j rping: one of -s (server) or -c (client) is required");
    }
}
