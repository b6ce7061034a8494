package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.FrameFilter;
import org.roce4j.verbs.Device;
import org.roce4j.wire.MacAddress;

/**
 * The eight perftest peers, server and client in one JVM on a threaded in-process fabric: the TCP
 * bytes each side sends (recorded by a proxy) against the script the C-against-C captures show, the
 * RoCE opcodes each side puts on the fabric, and the result tables both sides print.
 */
class PerftestTest {
    private static final Pattern LAT_ROW = Pattern.compile(
            " (\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s*");
    private static final Pattern BW_ROW = Pattern.compile(" (\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d{6})\\s*");
    private static final MacAddress SERVER_MAC = MacAddress.parse("02:00:00:00:02:01");
    private static final MacAddress CLIENT_MAC = MacAddress.parse("02:00:00:00:02:02");
    /** BTH opcodes (IBTA Table 38, RC). */
    private static final int SEND_FIRST = 0x00;
    private static final int SEND_LAST = 0x02;
    private static final int WRITE_FIRST = 0x06;
    private static final int WRITE_LAST = 0x08;
    private static final int WRITE_ONLY = 0x0A;
    private static final int READ_REQUEST = 0x0C;
    private static final int READ_RESPONSE_FIRST = 0x0D;
    private static final int READ_RESPONSE_LAST = 0x0F;
    private static final int ATOMIC_ACK = 0x12;
    private static final int CMP_SWAP = 0x13;
    private static final int FETCH_ADD = 0x14;
    private static final int HEADERS = 16 + 4 + 4 + 2;
    private static final int RECORD = PerftestAddress.LENGTH;

    private static Fabric fabric;
    private static List<Device> devices;
    private static ExecutorService threads;
    private final List<int[]> frames = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void fabric() throws IOException {
        fabric = Fabric.threaded();
        devices = List.of(SoftRnic.attach(fabric, "pt0", SERVER_MAC, ipv4("10.0.2.1")).device(),
                SoftRnic.attach(fabric, "pt1", CLIENT_MAC, ipv4("10.0.2.2")).device());
        threads = DaemonThreads.named("perftest");
    }

    @AfterAll
    static void close() {
        threads.shutdownNow();
        fabric.close();
    }

    @AfterEach
    void noFilter() {
        fabric.filter(FrameFilter.PASS_ALL);
    }

    @Test
    @DisplayName("write-lat -s 3000 -m 1024: the server writes first, then WRITE for WRITE; both print a latency row; 4 records, no close")
    void writeLat() throws Exception {
        Pair run = run("write-lat", "-s", "3000", "-n", "20", "-m", "1024");

        run.assertSucceeded();
        for (Result result : List.of(run.server(), run.client())) {
            assertThat(result.out()).contains(PerftestReport.LAT_HEADER, " TX depth        : 1", " Max inline data : 0[B]");
            assertLatencyRow(result, 3000, 20);
        }
        assertThat(first(WRITE_FIRST)).as("the first WRITE").isEqualTo(SERVER_MAC.toString());
        assertThat(count(SERVER_MAC, WRITE_FIRST)).isEqualTo(20);
        assertThat(count(CLIENT_MAC, WRITE_FIRST)).isEqualTo(20);
        assertThat(count(CLIENT_MAC, WRITE_LAST)).isEqualTo(20);
        Script expected = new Script(4, false, false);
        expected.assertSent(run.clientSent(), 1);
        expected.assertSent(run.serverSent(), 1);
    }

    @Test
    @DisplayName("write-lat -a -n 5: one row per size, 2 to 2^23, no exchange between sizes")
    void writeLatAllSizes() throws Exception {
        Pair run = run("write-lat", "-a", "-n", "5");

        run.assertSucceeded();
        for (Result result : List.of(run.server(), run.client())) {
            List<Matcher> rows = rows(result, LAT_ROW);
            assertThat(rows).hasSize(23);
            for (int i = 0; i < rows.size(); i++) {
                assertThat(Long.parseLong(rows.get(i).group(1))).isEqualTo(2L << i);
            }
        }
        new Script(4, false, false).assertSent(run.clientSent(), 1);
    }

    @Test
    @DisplayName("read-lat -s 3000: the client READs (3 response packets each), the server only answers and prints no row; 4 records, close")
    void readLat() throws Exception {
        Pair run = run("read-lat", "-s", "3000", "-n", "10", "-m", "1024");

        run.assertSucceeded();
        assertLatencyRow(run.client(), 3000, 10);
        assertThat(run.server().out()).doesNotContain(PerftestReport.LAT_HEADER).contains(" OUT 0x80 RKey ");
        assertThat(run.client().out()).contains(" roce4j data check: every READ returned the bytes the first READ");
        assertThat(run.client().out()).contains(" Outstand reads  : 128", " TX depth        : 1");
        assertThat(run.server().out()).doesNotContain(" TX depth");
        assertThat(count(CLIENT_MAC, READ_REQUEST)).isEqualTo(10);
        assertThat(count(SERVER_MAC, READ_RESPONSE_FIRST)).isEqualTo(10);
        assertThat(count(SERVER_MAC, READ_RESPONSE_LAST)).isEqualTo(10);
        assertThat(count(SERVER_MAC, READ_REQUEST)).isZero();
        Script expected = new Script(4, false, true);
        expected.assertSent(run.clientSent(), 1);
        expected.assertSent(run.serverSent(), 1);
        assertThat(PerftestAddress.decode(Arrays.copyOfRange(run.clientSent(), HEADERS, HEADERS + RECORD)).outReads())
                .isEqualTo(128);
    }

    @Test
    @DisplayName("send-lat -s 3000: the client sends first, SEND answers SEND; both print rows; 4 records (the last the receive sync), close")
    void sendLat() throws Exception {
        Pair run = run("send-lat", "-s", "3000", "-n", "20", "-m", "1024");

        run.assertSucceeded();
        assertLatencyRow(run.client(), 3000, 20);
        assertLatencyRow(run.server(), 3000, 20);
        assertThat(run.server().out()).contains(" RX depth        : 21");
        assertThat(run.client().out()).contains(" TX depth        : 1").doesNotContain("RKey");
        assertThat(first(SEND_FIRST)).as("the first SEND").isEqualTo(CLIENT_MAC.toString());
        assertThat(count(CLIENT_MAC, SEND_LAST)).isEqualTo(20);
        assertThat(count(SERVER_MAC, SEND_LAST)).isEqualTo(20);
        Script expected = new Script(4, false, true);
        expected.assertSent(run.clientSent(), 1);
        expected.assertSent(run.serverSent(), 1);
        // SEND records carry no rkey (the C tool's are 0 too).
        assertThat(PerftestAddress.decode(Arrays.copyOfRange(run.clientSent(), HEADERS, HEADERS + RECORD)).rkey()).isZero();
    }

    @Test
    @DisplayName("atomic-lat: FETCH_AND_ADD by default, 8 bytes, client only; -A CMP_AND_SWAP sends CMP_SWAP")
    void atomicLat() throws Exception {
        Pair run = run("atomic-lat", "-n", "10");

        run.assertSucceeded();
        assertLatencyRow(run.client(), 8, 10);
        assertThat(run.client().out()).contains("Atomic FETCH_AND_ADD Latency Test").doesNotContain("RKey");
        assertThat(run.server().out()).doesNotContain(PerftestReport.LAT_HEADER);
        assertThat(count(CLIENT_MAC, FETCH_ADD)).isEqualTo(10);
        assertThat(count(SERVER_MAC, ATOMIC_ACK)).isEqualTo(10);
        new Script(4, false, true).assertSent(run.clientSent(), 1);

        frames.clear();
        Pair swap = run("atomic-lat", "-n", "6", "-A", "CMP_AND_SWAP");
        swap.assertSucceeded();
        assertThat(swap.client().out()).contains("Atomic CMP_AND_SWAP Latency Test");
        assertThat(count(CLIENT_MAC, CMP_SWAP)).isEqualTo(6);
        assertThat(count(CLIENT_MAC, FETCH_ADD)).isZero();
    }

    @Test
    @DisplayName("write-bw -s 4096: the client's row, repeated by the server from the report exchange; 3 records, report, record, done")
    void writeBw() throws Exception {
        Pair run = run("write-bw", "-s", "4096", "-n", "200", "-m", "1024");

        run.assertSucceeded();
        Matcher client = bwRow(run.client(), 4096, 200);
        Matcher server = bwRow(run.server(), 4096, 200);
        assertThat(server.group(0)).isEqualTo(client.group(0));
        assertThat(Double.parseDouble(client.group(4))).isPositive();
        assertThat(run.client().out()).contains(" TX depth        : 128", " CQ Moderation   : 100");
        assertThat(run.server().out()).doesNotContain(" TX depth");
        assertThat(count(CLIENT_MAC, WRITE_FIRST)).isEqualTo(200);
        assertThat(count(SERVER_MAC, WRITE_FIRST)).isZero();
        Script expected = new Script(3, true, true);
        expected.assertSent(run.clientSent(), 1);
        expected.assertSent(run.serverSent(), 1);
        ByteBuffer report = ByteBuffer.wrap(run.clientSent(), HEADERS + 4 * RECORD, 40);
        assertThat(report.getLong()).isEqualTo(4096);
        assertThat(report.getLong()).isEqualTo(200);
    }

    @Test
    @DisplayName("write-bw -q 3: each QP's record, again after the connect, then one; every QP writes; the report counts 3 x iters")
    void writeBwThreeQps() throws Exception {
        Pair run = run("write-bw", "-s", "64", "-n", "50", "-q", "3", "-t", "8");

        run.assertSucceeded();
        bwRow(run.client(), 64, 150);
        bwRow(run.server(), 64, 150);
        assertThat(count(CLIENT_MAC, WRITE_ONLY)).isEqualTo(150);
        Script expected = new Script(7, true, true);
        expected.assertSent(run.clientSent(), 3);
        expected.assertSent(run.serverSent(), 3);
        assertThat(run.client().out()).contains(" Number of qps   : 3");
        assertThat(run.client().out().lines().filter(l -> l.startsWith(" remote address:"))).hasSize(3);
    }

    @Test
    @DisplayName("write-bw -a -n 5: the client prints 23 rows, the server the last size's row from the one report")
    void writeBwAllSizes() throws Exception {
        Pair run = run("write-bw", "-a", "-n", "5");

        run.assertSucceeded();
        List<Matcher> rows = rows(run.client(), BW_ROW);
        assertThat(rows).hasSize(23);
        assertThat(rows.getLast().group(1)).isEqualTo(Long.toString(1L << 23));
        assertThat(rows(run.server(), BW_ROW)).singleElement().satisfies(m -> assertThat(m.group(0))
                .isEqualTo(rows.getLast().group(0)));
        new Script(3, true, true).assertSent(run.clientSent(), 1);
    }

    @Test
    @DisplayName("read-bw -s 3000: the client READs, the server prints the client's row; 3 records, report, record, done")
    void readBw() throws Exception {
        Pair run = run("read-bw", "-s", "3000", "-n", "100", "-m", "1024");

        run.assertSucceeded();
        Matcher client = bwRow(run.client(), 3000, 100);
        assertThat(bwRow(run.server(), 3000, 100).group(0)).isEqualTo(client.group(0));
        assertThat(count(CLIENT_MAC, READ_REQUEST)).isEqualTo(100);
        assertThat(count(SERVER_MAC, READ_RESPONSE_LAST)).isEqualTo(100);
        new Script(3, true, true).assertSent(run.clientSent(), 1);
        new Script(3, true, true).assertSent(run.serverSent(), 1);
    }

    @Test
    @DisplayName("send-bw -s 3000: the client SENDs, the server receives and prints its own row (peak 0.00); 4 records, close")
    void sendBw() throws Exception {
        Pair run = run("send-bw", "-s", "3000", "-n", "100", "-m", "1024");

        run.assertSucceeded();
        bwRow(run.client(), 3000, 100);
        Matcher server = bwRow(run.server(), 3000, 100);
        assertThat(server.group(3)).isEqualTo("0.00");
        assertThat(Double.parseDouble(server.group(4))).isPositive();
        assertThat(count(CLIENT_MAC, SEND_FIRST)).isEqualTo(100);
        assertThat(count(SERVER_MAC, SEND_FIRST)).isZero();
        Script expected = new Script(4, false, true);
        expected.assertSent(run.clientSent(), 1);
        expected.assertSent(run.serverSent(), 1);
    }

    @Test
    @DisplayName("send-bw -a -n 5: both sides print 23 rows; 4 records, then per size the run and a sync, the next size's sync; close")
    void sendBwAllSizes() throws Exception {
        Pair run = run("send-bw", "-a", "-n", "5");

        run.assertSucceeded();
        for (Result result : List.of(run.server(), run.client())) {
            List<Matcher> rows = rows(result, BW_ROW);
            assertThat(rows).hasSize(23);
            assertThat(rows.getLast().group(1)).isEqualTo(Long.toString(1L << 23));
        }
        // 4 before the first size, 1 after each size, 1 before each further size: 4 + 23 + 22.
        Script expected = new Script(4 + 23 + 22, false, true);
        expected.assertSent(run.clientSent(), 1);
        expected.assertSent(run.serverSent(), 1);
    }

    @Test
    @DisplayName("atomic-bw: FETCH_ADDs from the client, the server prints the client's row; 3 records, report, record, done")
    void atomicBw() throws Exception {
        Pair run = run("atomic-bw", "-n", "100");

        run.assertSucceeded();
        Matcher client = bwRow(run.client(), 8, 100);
        assertThat(bwRow(run.server(), 8, 100).group(0)).isEqualTo(client.group(0));
        assertThat(run.server().out()).contains("Atomic FETCH_AND_ADD BW Test");
        assertThat(count(CLIENT_MAC, FETCH_ADD)).isEqualTo(100);
        assertThat(count(SERVER_MAC, ATOMIC_ACK)).isEqualTo(100);
        new Script(3, true, true).assertSent(run.clientSent(), 1);
    }

    private static final Pattern LAT_DURATION_ROW = Pattern.compile(" (\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)\\s+(\\d+\\.\\d\\d)\\s*");

    @Test
    @DisplayName("write-lat -D 1 and send-lat -D 1: both sides print t_avg and tps over the 1-second sample; t_avg x iterations x 2 = 1 s")
    void latencyDuration() throws Exception {
        for (String tool : List.of("write-lat", "send-lat")) {
            Pair run = run(tool, "-D", "1", "-s", "64");

            run.assertSucceeded();
            for (Result result : List.of(run.server(), run.client())) {
                assertThat(result.out()).contains(PerftestReport.LAT_DURATION_HEADER);
                Matcher row = rows(result, LAT_DURATION_ROW).getFirst();
                assertThat(row.group(1)).isEqualTo("64");
                long iterations = Long.parseLong(row.group(2));
                double average = Double.parseDouble(row.group(3));
                assertThat(iterations).isPositive();
                assertThat(average * iterations * 2).as(tool + ": the sample, in µs").isBetween(990_000.0, 1_010_000.0);
                assertThat(Double.parseDouble(row.group(4))).isCloseTo(iterations, org.assertj.core.data.Percentage.withPercentage(2));
            }
            new Script(4, false, !tool.equals("write-lat")).assertSent(run.clientSent(), 1);
        }
    }

    @Test
    @DisplayName("write-bw -D 1: the client's sample row (peak 0.00) goes to the server in the report; send-bw -D 1: the server counts its own")
    void bandwidthDuration() throws Exception {
        Pair write = run("write-bw", "-D", "1", "-s", "1024");
        write.assertSucceeded();
        Matcher client = rows(write.client(), BW_ROW).getFirst();
        assertThat(client.group(3)).isEqualTo("0.00");
        assertThat(Long.parseLong(client.group(2))).isPositive();
        assertThat(rows(write.server(), BW_ROW).getFirst().group(0)).isEqualTo(client.group(0));
        new Script(3, true, true).assertSent(write.clientSent(), 1);

        Pair send = run("send-bw", "-D", "1", "-s", "1024");
        send.assertSucceeded();
        assertThat(Long.parseLong(rows(send.server(), BW_ROW).getFirst().group(2))).isPositive();
        assertThat(Long.parseLong(rows(send.client(), BW_ROW).getFirst().group(2))).isPositive();
        new Script(4, false, true).assertSent(send.clientSent(), 1);
    }

    @Test
    @DisplayName("options a tool does not have, or roce4j cannot do yet, are usage errors (exit 2), not ignored")
    void refusedOptions() {
        PeerEnvironment environment = new PeerEnvironment(DeviceSelector.of(devices), p -> { });
        assertThat(roce4j(environment, new String[] {"write-lat", "-D", "2", "-a"})).satisfies(r -> {
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("-a and -D");
        });
        assertThat(roce4j(environment, new String[] {"write-lat", "-D", "0"}).exit()).isEqualTo(2);
        assertThat(roce4j(environment, new String[] {"atomic-lat", "-s", "64"}).exit()).isEqualTo(2);
        assertThat(roce4j(environment, new String[] {"write-lat", "-q", "2"}).exit()).isEqualTo(2);
        assertThat(roce4j(environment, new String[] {"read-lat", "-A", "CMP_AND_SWAP"}).exit()).isEqualTo(2);
        assertThat(roce4j(environment, new String[] {"atomic-bw", "-A", "SWAP"}).exit()).isEqualTo(2);
        assertThat(roce4j(environment, new String[] {"write-bw", "-n", "4"}).exit()).isEqualTo(2);
        assertThat(roce4j(environment, new String[] {"read-bw", "-u", "32"})).satisfies(r -> {
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("0 to 31");
        });
    }

    @Test
    @DisplayName("read-bw -u 18: perftest's QP timeout option; both sides run with the longer local ACK timeout")
    void readBwWithQpTimeout() throws Exception {
        Pair run = run("read-bw", "-s", "3000", "-n", "20", "-m", "1024", "-u", "18");
        run.assertSucceeded();
        assertThat(run.server().out()).containsPattern(BW_ROW);
    }

    /**
     * What one side sends, as perftest 6.06 sends it (the C-against-C captures): version, cycle
     * buffer 4096, cache line 64, MTU; {@code records} records before the test (each QP's own);
     * then for bandwidth tests with a report one record and the five report fields; then, when the
     * tool closes, one record and "done\0".
     */
    record Script(int records, boolean report, boolean close) {
        void assertSent(byte[] sent, int qps) {
            int expected = HEADERS + (records + (report ? 1 : 0) + (close ? 1 : 0)) * RECORD + (report ? 40 : 0)
                    + (close ? 5 : 0);
            assertThat(sent).hasSize(expected);
            assertThat(Arrays.copyOfRange(sent, 0, 16)).isEqualTo(PerftestHandshake.versionBytes("6.06"));
            ByteBuffer bytes = ByteBuffer.wrap(sent);
            assertThat(bytes.getInt(16)).isEqualTo(4096);
            assertThat(bytes.getInt(20)).isEqualTo(64);
            assertThat(sent[25]).isZero();
            List<Integer> qpns = new ArrayList<>();
            int at = HEADERS;
            for (int i = 0; i < records + (report ? 1 : 0) + (close ? 1 : 0); i++) {
                byte[] record = Arrays.copyOfRange(sent, at, at + RECORD);
                assertThat(new String(record, US_ASCII)).matches("0000:\\p{XDigit}{4}:\\p{XDigit}{6}:\\p{XDigit}{6}:"
                        + "\\p{XDigit}{8}:\\p{XDigit}{16}:(\\p{XDigit}{2}:){16}00000000:\\x00");
                qpns.add(PerftestAddress.decode(record).qpn());
                at += RECORD + (report && i == records ? 40 : 0);
            }
            assertThat(new HashSet<>(qpns)).hasSize(qps);
            if (close) {
                assertThat(Arrays.copyOfRange(sent, expected - 5, expected)).isEqualTo("done\0".getBytes(US_ASCII));
            }
        }
    }

    private long count(MacAddress source, int opcode) {
        synchronized (frames) {
            // Distinct PSNs: a retransmission (the threaded fabric runs real-clock ACK timers) counts once.
            return frames.stream().filter(f -> f[0] == source.hashCode() && f[1] == opcode).mapToInt(f -> f[2])
                    .distinct().count();
        }
    }

    private String first(int opcode) {
        synchronized (frames) {
            int[] frame = frames.stream().filter(f -> f[1] == opcode).findFirst().orElseThrow();
            return frame[0] == SERVER_MAC.hashCode() ? SERVER_MAC.toString() : CLIENT_MAC.toString();
        }
    }

    private static void assertLatencyRow(Result result, long size, int iters) {
        assertThat(result.out()).contains(PerftestReport.LAT_HEADER);
        Matcher row = rows(result, LAT_ROW).getFirst();
        assertThat(Long.parseLong(row.group(1))).isEqualTo(size);
        assertThat(Integer.parseInt(row.group(2))).isEqualTo(iters);
        double min = Double.parseDouble(row.group(3));
        double max = Double.parseDouble(row.group(4));
        assertThat(min).isPositive().isLessThanOrEqualTo(max);
    }

    private static Matcher bwRow(Result result, long size, long iters) {
        assertThat(result.out()).contains(PerftestReport.BW_HEADER);
        Matcher row = rows(result, BW_ROW).getFirst();
        assertThat(Long.parseLong(row.group(1))).isEqualTo(size);
        assertThat(Long.parseLong(row.group(2))).isEqualTo(iters);
        return row;
    }

    private static List<Matcher> rows(Result result, Pattern pattern) {
        List<Matcher> rows = new ArrayList<>();
        for (String line : result.out().lines().toList()) {
            Matcher m = pattern.matcher(line);
            if (m.matches()) {
                rows.add(m);
            }
        }
        assertThat(rows).as("result rows in:\n" + result.out()).isNotEmpty();
        return rows;
    }

    record Result(int exit, String out, String err) {
    }

    record Pair(Result server, Result client, byte[] clientSent, byte[] serverSent) {
        void assertSucceeded() {
            assertThat(server.exit()).as("server: " + server.err() + server.out()
                    + "\nclient: " + client.err() + client.out()).isZero(); // a server's failure is often its client's
            assertThat(client.exit()).as("client: " + client.err() + client.out()).isZero();
        }
    }

    /** Records (source MAC, BTH opcode, PSN) of every IPv4 RoCEv2 frame, delivering all unchanged. */
    private void watch() {
        fabric.filter((frame, length, transmit, nominal) -> {
            if (length > 42 && (frame[12] & 0xFF) == 0x08 && frame[13] == 0 && frame[23] == 17) {
                long mac = 0;
                for (int i = 6; i < 12; i++) {
                    mac = mac << 8 | (frame[i] & 0xFF);
                }
                int psn = (frame[51] & 0xFF) << 16 | (frame[52] & 0xFF) << 8 | frame[53] & 0xFF;
                frames.add(new int[] {new MacAddress(mac).hashCode(), frame[42] & 0xFF, psn});
            }
            return nominal;
        });
    }

    private Pair run(String command, String... options) throws Exception {
        watch();
        CompletableFuture<Integer> serverPort = new CompletableFuture<>();
        Future<Result> server = threads.submit(() -> roce4j(new PeerEnvironment(DeviceSelector.of(devices),
                serverPort::complete), concat(new String[] {command, "-d", "pt0", "-p", "0", "-x", "1"}, options)));
        int port = serverPort.get(30, TimeUnit.SECONDS);
        try (RecordingTcpProxy proxy = new RecordingTcpProxy(port, threads)) {
            Future<Result> client = threads.submit(() -> roce4j(new PeerEnvironment(DeviceSelector.of(devices), p -> { }),
                    concat(concat(new String[] {command, "-d", "pt1", "-x", "1", "-p", Integer.toString(proxy.port())},
                            options), "127.0.0.1")));
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
