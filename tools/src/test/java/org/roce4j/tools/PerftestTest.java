package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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

/** write-lat and write-bw, server and client in one JVM on a threaded in-process fabric, the TCP bytes recorded. */
class PerftestTest {
    private static final Pattern LAT_ROW = Pattern.compile(
            " (\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s*");
    private static final Pattern BW_ROW = Pattern.compile(" (\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d{6})\\s*");

    private static Fabric fabric;
    private static List<Device> devices;
    private static ExecutorService threads;

    @BeforeAll
    static void fabric() throws IOException {
        fabric = Fabric.threaded();
        devices = List.of(
                SoftRnic.attach(fabric, "pt0", MacAddress.parse("02:00:00:00:02:01"), ipv4("10.0.2.1")).device(),
                SoftRnic.attach(fabric, "pt1", MacAddress.parse("02:00:00:00:02:02"), ipv4("10.0.2.2")).device());
        threads = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "perftest");
            thread.setDaemon(true);
            return thread;
        });
    }

    @AfterAll
    static void close() {
        threads.shutdownNow();
        fabric.close();
    }

    @Test
    @DisplayName("write-lat -s 3000 -n 50: both sides print a latency row; the TCP script is version, 2 ints, MTU, 4 records each way")
    void writeLat() throws Exception {
        Pair run = run("write-lat", "-x", "1", "-s", "3000", "-n", "50");

        run.assertSucceeded();
        for (Result result : List.of(run.server(), run.client())) {
            assertThat(result.out()).contains(Perftest.LAT_HEADER);
            Matcher row = row(result, LAT_ROW);
            assertThat(row.group(1)).isEqualTo("3000");
            assertThat(row.group(2)).isEqualTo("50");
        }
        assertScript(run.clientSent(), 4, 0, false);
        assertScript(run.serverSent(), 4, 0, false);
    }

    @Test
    @DisplayName("write-bw -s 4096 -n 200: the client's row, repeated by the server from the report exchange; records, report, done")
    void writeBw() throws Exception {
        Pair run = run("write-bw", "-x", "1", "-s", "4096", "-n", "200", "-m", "1024");

        run.assertSucceeded();
        Matcher client = row(run.client(), BW_ROW);
        Matcher server = row(run.server(), BW_ROW);
        assertThat(client.group(1)).isEqualTo("4096");
        assertThat(client.group(2)).isEqualTo("200");
        assertThat(server.group(0)).isEqualTo(client.group(0));
        assertThat(Double.parseDouble(client.group(4))).isPositive();
        assertScript(run.clientSent(), 5, 5, true);
        assertScript(run.serverSent(), 5, 5, true);
        // The report: size and iterations as 8-byte big-endian integers.
        int report = 16 + 4 + 4 + 2 + 4 * 108;
        ByteBuffer sent = ByteBuffer.wrap(run.clientSent());
        assertThat(sent.getLong(report)).isEqualTo(4096);
        assertThat(sent.getLong(report + 8)).isEqualTo(200);
    }

    /** version, cycle buffer, cache line, MTU "3\\0", the records (all the same), the report fields, "done\\0". */
    private static void assertScript(byte[] sent, int records, int reportFields, boolean done) {
        int expected = 16 + 4 + 4 + 2 + records * 108 + reportFields * 8 + (done ? 5 : 0);
        assertThat(sent).hasSize(expected);
        assertThat(Arrays.copyOfRange(sent, 0, 16)).isEqualTo(PerftestHandshake.versionBytes("6.06"));
        ByteBuffer bytes = ByteBuffer.wrap(sent);
        assertThat(bytes.getInt(16)).isEqualTo(4096);
        assertThat(bytes.getInt(20)).isEqualTo(64);
        assertThat(Arrays.copyOfRange(sent, 24, 26)).isEqualTo(new byte[] {'3', 0});
        byte[] first = Arrays.copyOfRange(sent, 26, 26 + 108);
        PerftestAddress address = PerftestAddress.decode(first);
        assertThat(address.encode()).isEqualTo(first);
        assertThat(new String(first, US_ASCII)).matches(
                "0000:0001:\\p{XDigit}{6}:\\p{XDigit}{6}:\\p{XDigit}{8}:\\p{XDigit}{16}:(\\p{XDigit}{2}:){16}00000000:\\x00");
        int recordsBeforeReport = reportFields == 0 ? records : records - 1;
        for (int i = 1; i < records; i++) {
            int at = 26 + i * 108 + (i >= recordsBeforeReport ? reportFields * 8 : 0);
            assertThat(Arrays.copyOfRange(sent, at, at + 108)).isEqualTo(first);
        }
        if (done) {
            assertThat(Arrays.copyOfRange(sent, expected - 5, expected)).isEqualTo("done\0".getBytes(US_ASCII));
        }
    }

    private static Matcher row(Result result, Pattern pattern) {
        for (String line : result.out().lines().toList()) {
            Matcher m = pattern.matcher(line);
            if (m.matches()) {
                return m;
            }
        }
        throw new AssertionError("no result row in:\n" + result.out());
    }

    record Result(int exit, String out, String err) {
    }

    record Pair(Result server, Result client, byte[] clientSent, byte[] serverSent) {
        void assertSucceeded() {
            assertThat(server.exit()).as("server: " + server.err() + server.out()).isZero();
            assertThat(client.exit()).as("client: " + client.err() + client.out()).isZero();
        }
    }

    private Pair run(String command, String... options) throws Exception {
        CompletableFuture<Integer> serverPort = new CompletableFuture<>();
        Future<Result> server = threads.submit(() -> roce4j(new PeerEnvironment(DeviceSelector.of(devices),
                serverPort::complete), concat(new String[] {command, "-d", "pt0", "-p", "0"}, options)));
        int port = serverPort.get(30, TimeUnit.SECONDS);
        try (RecordingTcpProxy proxy = new RecordingTcpProxy(port, threads)) {
            Future<Result> client = threads.submit(() -> roce4j(new PeerEnvironment(DeviceSelector.of(devices), p -> { }),
                    concat(concat(new String[] {command, "-d", "pt1", "-p", Integer.toString(proxy.port())}, options),
                            "127.0.0.1")));
            Result clientResult = await(client);
            Result serverResult = await(server);
            proxy.awaitClosed();
            return new Pair(serverResult, clientResult, proxy.upstream(), proxy.downstream());
        }
    }

    private static Result await(Future<Result> role) throws Exception {
        try {
            return role.get(120, TimeUnit.SECONDS);
        } finally {
            role.cancel(true);
        }
    }

    private static Result roce4j(PeerEnvironment environment, String[] args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Roce4j.run(new PrintWriter(out), new PrintWriter(err), environment, args);
        return new Result(exit, out.toString().replace(System.lineSeparator(), "\n"),
                err.toString().replace(System.lineSeparator(), "\n"));
    }

    private static String[] concat(String[] first, String... second) {
        String[] all = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }

    private static Inet4Address ipv4(String text) throws IOException {
        return (Inet4Address) InetAddress.getByName(text);
    }
}
