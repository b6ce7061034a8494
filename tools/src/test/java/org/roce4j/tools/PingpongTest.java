package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Device;
import org.roce4j.wire.MacAddress;

/**
 * The four pingpongs, server and client in one JVM: two emulated RNICs on a threaded in-process
 * fabric (each role blocks in its own thread, as two processes would), the TCP handshake over
 * 127.0.0.1 through a recording proxy so that the bytes on the wire can be checked.
 */
class PingpongTest {
    private static final String LOCAL = "  local address:  LID 0x(\\p{XDigit}{4}), QPN 0x(\\p{XDigit}{6}), PSN 0x(\\p{XDigit}{6})%s GID (\\S+)";
    private static final Pattern REMOTE =
            Pattern.compile("  remote address: LID 0x(\\p{XDigit}{4}), QPN 0x(\\p{XDigit}{6}), PSN 0x(\\p{XDigit}{6}), GID (\\S+)");
    private static final Pattern BYTES = Pattern.compile("(\\d+) bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec");
    private static final Pattern ITERS = Pattern.compile("(\\d+) iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter");

    private static Fabric fabric;
    private static List<Device> devices;
    private static ExecutorService threads;

    @BeforeAll
    static void fabric() throws IOException {
        fabric = Fabric.threaded();
        if (System.getProperty("pingpong.tap") != null) {
            fabric.tap(java.nio.file.Path.of(System.getProperty("pingpong.tap")));
        }
        devices = List.of(
                SoftRnic.attach(fabric, "pp0", MacAddress.parse("02:00:00:00:01:01"), ipv4("10.0.1.1")).device(),
                SoftRnic.attach(fabric, "pp1", MacAddress.parse("02:00:00:00:01:02"), ipv4("10.0.1.2")).device());
        threads = DaemonThreads.named("pingpong");
    }

    @AfterAll
    static void close() {
        threads.shutdownNow();
        fabric.close();
    }

    @Test
    @DisplayName("rc-pingpong: both roles succeed and print the C tool's lines; 4 KiB messages are 4 packets at MTU 1024")
    void rc() throws Exception {
        Pair run = pingpong("rc-pingpong", 1, "-g", "1", "-n", "100");

        run.assertSucceeded();
        assertAddresses(run, ",", 1);
        run.assertResults(4096, 100);
    }

    @Test
    @DisplayName("rc-pingpong -s 8192 -m 1024 -c: multi-packet messages arrive intact, the server's check finds nothing")
    void rcMultiPacketChecked() throws Exception {
        Pair run = pingpong("rc-pingpong", 1, "-g", "1", "-n", "50", "-s", "8192", "-m", "1024", "-c");

        run.assertSucceeded();
        assertThat(run.server.out()).doesNotContain("invalid data");
        run.assertResults(8192, 50);
    }

    @Test
    @DisplayName("-c on the server catches data that is not what a -c client sends: 'invalid data in page N', exit 1")
    void checkFails() throws Exception {
        Pair run = pingpong("rc-pingpong", 1, new String[] {"-g", "1", "-n", "10", "-s", "8192", "-c"},
                new String[] {"-g", "1", "-n", "10", "-s", "8192"});

        assertThat(run.client.exit()).as(run.client.err()).isZero();
        assertThat(run.server.exit()).isEqualTo(1);
        assertThat(run.server.lines()).contains("invalid data in page 0", "invalid data in page 1");
    }

    @Test
    @DisplayName("-c: a client that spoils what it sends (--corrupt-payload-for-test) fails the server's check: "
            + "'invalid data in page 0', exit 1")
    void corruptedByClientFailsServerCheck() throws Exception {
        String[] checked = {"-g", "1", "-n", "10", "-s", "8192", "-c"};
        Pair run = pingpong("rc-pingpong", 1, checked, concat(checked, "--corrupt-payload-for-test"));

        assertThat(run.server.exit()).as(run.server.err()).isEqualTo(1);
        assertThat(run.server.lines()).contains("invalid data in page 0").doesNotContain("invalid data in page 1");
        assertThat(run.server.err()).contains("-c: 10 of 10 received messages had invalid data (the first: message 1)");
        assertThat(run.client.err()).startsWith("TEST ONLY: --corrupt-payload-for-test");
    }

    @Test
    @DisplayName("-c checks on the client too (the C client checks nothing): a server that spoils what it sends "
            + "fails the client from message 1, exit 1 (the server sees its spoiled byte only from message 2, echoed)")
    void corruptedByServerFailsClientCheck() throws Exception {
        String[] checked = {"-g", "1", "-n", "10", "-s", "8192", "-c"};
        Pair run = pingpong("rc-pingpong", 1, concat(checked, "--corrupt-payload-for-test"), checked);

        assertThat(run.client.exit()).as(run.client.err()).isEqualTo(1);
        assertThat(run.client.lines()).contains("invalid data in page 0");
        assertThat(run.client.err()).contains("-c: 10 of 10 received messages had invalid data (the first: message 1)");
        // Both sides send from the buffer they receive into, so the client echoes the spoiled byte back.
        assertThat(run.server.err()).contains("-c: 9 of 10 received messages had invalid data (the first: message 2)");
    }

    @Test
    @DisplayName("ud-pingpong -c on the client: the message is checked after the 40-byte GRH")
    void udCorruptedByServerFailsClientCheck() throws Exception {
        String[] checked = {"-g", "1", "-n", "10", "-s", "512", "-c"};
        Pair run = pingpong("ud-pingpong", 1, concat(checked, "--corrupt-payload-for-test"), checked);

        assertThat(run.client.exit()).as(run.client.err()).isEqualTo(1);
        assertThat(run.client.lines()).contains("invalid data in page 0");
        assertThat(run.client.err()).contains("(the first: message 1)");
    }

    @Test
    @DisplayName("rc-pingpong -e: completions through a completion channel")
    void rcEvents() throws Exception {
        Pair run = pingpong("rc-pingpong", 1, "-g", "1", "-n", "100", "-s", "1024", "-e");

        run.assertSucceeded();
        run.assertResults(1024, 100);
    }

    @Test
    @DisplayName("uc-pingpong -s 8192 -c: UC, multi-packet, checked")
    void uc() throws Exception {
        Pair run = pingpong("uc-pingpong", 1, "-g", "1", "-n", "50", "-s", "8192", "-c");

        run.assertSucceeded();
        assertAddresses(run, ",", 1);
        assertThat(run.server.out()).doesNotContain("invalid data");
        run.assertResults(8192, 50);
    }

    @Test
    @DisplayName("ud-pingpong -s 512 -c: UD below the MTU; its local line has ibv_ud_pingpong's 'PSN 0x...: GID'")
    void ud() throws Exception {
        Pair run = pingpong("ud-pingpong", 1, "-g", "1", "-n", "100", "-s", "512", "-c");

        run.assertSucceeded();
        assertAddresses(run, ":", 1);
        assertThat(run.server.out()).doesNotContain("invalid data");
        run.assertResults(512, 100);
    }

    @Test
    @DisplayName("ud-pingpong -s 2048 on a 1024-byte port: 'Requested size larger than port MTU (1024)', exit 1")
    void udTooBig() {
        Result result = roce4j("ud-pingpong", "-d", "pp0", "-g", "1", "-s", "2048", "-p", "0");

        assertThat(result.exit()).isEqualTo(1);
        assertThat(result.err()).isEqualTo("Requested size larger than port MTU (1024)\n");
    }

    @Test
    @DisplayName("srq-pingpong -q 4: four QPs on one SRQ, 256 address records each way on the wire, the unused ones zero")
    void srq() throws Exception {
        Pair run = pingpong("srq-pingpong", 256, "-g", "1", "-q", "4", "-n", "200", "-s", "2048", "-c");

        run.assertSucceeded();
        assertAddresses(run, ",", 4);
        assertThat(run.server.out()).doesNotContain("invalid data");
        run.assertResults(2048, 200);
        String zero = "0000:000000:000000:" + "0".repeat(32) + "\0";
        for (int i = 4; i < 256; i++) {
            assertThat(run.clientRecord(i)).isEqualTo(zero);
            assertThat(run.serverRecord(i)).isEqualTo(zero);
        }
    }

    @Test
    @DisplayName("without -g (RoCE needs a GRH) both sides fail as the C tools do on RoCE, exit 1")
    void noGid() throws Exception {
        Pair run = pingpong("rc-pingpong", 1, "-n", "10");

        assertThat(run.server.exit()).isEqualTo(1);
        assertThat(run.server.err()).startsWith("Failed to modify QP to RTR\n").contains("Couldn't connect to remote QP\n");
        assertThat(run.client.exit()).isEqualTo(1);
        assertThat(run.client.err()).contains("Couldn't read/write remote address");
        assertThat(run.client.out()).contains("GID ::\n");
    }

    @Test
    @DisplayName("-d NAME not in the list: 'IB device NAME not found', exit 1")
    void unknownDevice() {
        Result result = roce4j("rc-pingpong", "-d", "mlx5_9");

        assertThat(result.exit()).isEqualTo(1);
        assertThat(result.err()).isEqualTo("IB device mlx5_9 not found\n");
    }

    @Test
    @DisplayName("the client cannot reach a server: \"Couldn't connect to HOST:PORT\", exit 1")
    void noServer() throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Result result = roce4j("rc-pingpong", "-d", "pp1", "-g", "1", "-p", Integer.toString(port), "127.0.0.1");

        assertThat(result.exit()).isEqualTo(1);
        assertThat(result.err()).isEqualTo("Couldn't connect to 127.0.0.1:" + port + "\n");
    }

    /** Checks the printed addresses against each other and against the records seen on the wire. */
    private static void assertAddresses(Pair run, String psnSeparator, int qps) {
        Pattern local = Pattern.compile(String.format(LOCAL, Pattern.quote(psnSeparator)));
        List<Matcher> serverLocal = matching(run.server, local);
        List<Matcher> clientLocal = matching(run.client, local);
        List<Matcher> serverRemote = matching(run.server, REMOTE);
        List<Matcher> clientRemote = matching(run.client, REMOTE);
        assertThat(serverLocal).hasSize(qps);
        assertThat(clientLocal).hasSize(qps);
        assertThat(serverRemote).hasSize(qps);
        assertThat(clientRemote).hasSize(qps);
        for (int i = 0; i < qps; i++) {
            assertThat(serverLocal.get(i).group(4)).isEqualTo("::ffff:10.0.1.1");
            assertThat(clientLocal.get(i).group(4)).isEqualTo("::ffff:10.0.1.2");
            for (int g = 1; g <= 4; g++) {
                assertThat(serverRemote.get(i).group(g)).isEqualTo(clientLocal.get(i).group(g));
                assertThat(clientRemote.get(i).group(g)).isEqualTo(serverLocal.get(i).group(g));
            }
            // The records on the wire: %04x:%06x:%06x: then the 16 GID bytes as 32 hex digits, then NUL.
            assertThat(run.clientRecord(i)).isEqualTo(record(clientLocal.get(i), "0a000102"));
            assertThat(run.serverRecord(i)).isEqualTo(record(serverLocal.get(i), "0a000101"));
        }
    }

    private static String record(Matcher local, String ipv4Hex) {
        return local.group(1) + ":" + local.group(2) + ":" + local.group(3) + ":00000000000000000000ffff" + ipv4Hex + "\0";
    }

    private static List<Matcher> matching(Result result, Pattern pattern) {
        List<Matcher> found = new ArrayList<>();
        for (String line : result.lines()) {
            Matcher m = pattern.matcher(line);
            if (m.matches()) {
                found.add(m);
            }
        }
        return found;
    }

    record Result(int exit, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }
    }

    /** Both roles' results and the TCP bytes each sent. */
    record Pair(Result server, Result client, byte[] clientSent, byte[] serverSent) {
        void assertSucceeded() {
            assertThat(server.exit()).as("server: " + server.err() + server.out()).isZero();
            assertThat(client.exit()).as("client: " + client.err() + client.out()).isZero();
            assertThat(server.err()).isEmpty();
            assertThat(client.err()).isEmpty();
        }

        void assertResults(int size, int iters) {
            for (Result result : List.of(server, client)) {
                List<Matcher> bytes = matching(result, BYTES);
                List<Matcher> itersLines = matching(result, ITERS);
                assertThat(bytes).as(result.out()).hasSize(1);
                assertThat(itersLines).hasSize(1);
                assertThat(Long.parseLong(bytes.getFirst().group(1))).isEqualTo((long) size * iters * 2);
                assertThat(Integer.parseInt(itersLines.getFirst().group(1))).isEqualTo(iters);
            }
        }

        String clientRecord(int i) {
            return new String(clientSent, i * 52, 52, US_ASCII);
        }

        String serverRecord(int i) {
            return new String(serverSent, i * 52, 52, US_ASCII);
        }
    }

    private Pair pingpong(String command, int records, String... options) throws Exception {
        return pingpong(command, records, options, options);
    }

    /**
     * Runs the server (on pp0) and the client (on pp1, through a recording TCP proxy), and checks
     * the byte counts of the handshake: {@code records} records each way, then the client's "done\0".
     */
    private Pair pingpong(String command, int records, String[] serverOptions, String[] clientOptions) throws Exception {
        CompletableFuture<Integer> serverPort = new CompletableFuture<>();
        Future<Result> server = threads.submit(() -> roce4j(new PeerEnvironment(DeviceSelector.of(devices),
                serverPort::complete), concat(command, "-d", "pp0", "-p", "0"), serverOptions));
        int port = serverPort.get(30, TimeUnit.SECONDS);
        try (RecordingTcpProxy proxy = new RecordingTcpProxy(port, threads)) {
            Future<Result> client = threads.submit(() -> roce4j(concat(command, "-d", "pp1", "-p",
                    Integer.toString(proxy.port())), concat(clientOptions, "127.0.0.1")));
            Result clientResult = await(client);
            Result serverResult = await(server);
            proxy.awaitClosed();
            Pair pair = new Pair(serverResult, clientResult, proxy.upstream(), proxy.downstream());
            if (serverResult.exit() == 0 && clientResult.exit() == 0) {
                assertThat(pair.clientSent()).hasSize(records * 52 + 5);
                assertThat(Arrays.copyOfRange(pair.clientSent(), records * 52, records * 52 + 5))
                        .isEqualTo("done\0".getBytes(US_ASCII));
                assertThat(pair.serverSent()).hasSize(records * 52);
            }
            return pair;
        }
    }

    private static Result await(Future<Result> role) throws Exception {
        try {
            return role.get(120, TimeUnit.SECONDS);
        } finally {
            role.cancel(true); // interrupts a stuck poll loop
        }
    }

    private static Result roce4j(String... args) {
        return roce4j(new PeerEnvironment(DeviceSelector.of(devices), p -> { }), args, new String[0]);
    }

    private static Result roce4j(String[] args, String[] more) {
        return roce4j(new PeerEnvironment(DeviceSelector.of(devices), p -> { }), args, more);
    }

    private static Result roce4j(PeerEnvironment environment, String[] args, String[] more) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Roce4j.run(new PrintWriter(out), new PrintWriter(err), environment, concat(args, more));
        return new Result(exit, out.toString().replace(System.lineSeparator(), "\n"),
                err.toString().replace(System.lineSeparator(), "\n"));
    }

    private static String[] concat(String[] first, String... second) {
        String[] all = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }

    private static String[] concat(String first, String... rest) {
        return concat(new String[] {first}, rest);
    }

    private static Inet4Address ipv4(String text) throws IOException {
        return (Inet4Address) InetAddress.getByName(text);
    }
}
