package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.cm.ConnectionManager;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Device;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.mad.CmMad;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.ConnectRequest;
import org.roce4j.wire.mad.DecodedCmMad;
import org.roce4j.wire.mad.MadHeader;

/**
 * The eight perftest peers with {@code -R}, server and client in two threads on a threaded
 * in-process fabric, each host with its own emulated rdma_cm: both run to the end, and the SENDs of
 * the out-of-band QP carry the script {@code rxe_rping_cm.pcap} shows for {@code ib_write_bw -R}
 * (the fixed parts byte for byte, the syncs as 56 zero bytes, records of 56 bytes naming the test
 * QP), the CM leaving nothing behind on either host.
 */
class PerftestRdmaCmTest {
    private static final MacAddress SERVER_MAC = MacAddress.parse("02:00:00:00:03:01");
    private static final MacAddress CLIENT_MAC = MacAddress.parse("02:00:00:00:03:02");
    private static final String SERVER_IP = "10.0.3.1";
    private static final int SEND_ONLY = 0x04;
    private static final int UD_SEND_ONLY = 0x64;
    private static final int BTH = 14 + 20 + 8;
    private static final int DETH = 8;
    /** rdma_cm's service ID for TCP port 18515: prefix 0x0000000001, port space 0x06, the port. */
    private static final long SERVICE_ID = 0x0000000001060000L | 18515;

    private static Fabric fabric;
    private static SoftRnic serverNode;
    private static SoftRnic clientNode;
    private static List<Device> devices;
    private static EmulatedCm serverCm;
    private static EmulatedCm clientCm;
    private static ExecutorService threads;
    /** The payload of every RC SEND Only, with the MAC that sent it and its destination QP. */
    private final List<Send> sends = Collections.synchronizedList(new ArrayList<>());
    /** Every ConnectRequest on the fabric (UD SEND Only to QP 1). */
    private final List<ConnectRequest> requests = Collections.synchronizedList(new ArrayList<>());

    record Send(MacAddress source, int destQp, byte[] payload) {
    }

    record Result(int exit, String out, String err) {
    }

    @BeforeAll
    static void fabric() throws IOException {
        fabric = Fabric.threaded();
        serverNode = SoftRnic.attach(fabric, "cm0", SERVER_MAC, ipv4(SERVER_IP));
        clientNode = SoftRnic.attach(fabric, "cm1", CLIENT_MAC, ipv4("10.0.3.2"));
        devices = List.of(serverNode.device(), clientNode.device());
        serverCm = EmulatedCm.of(serverNode);
        clientCm = EmulatedCm.of(clientNode);
        threads = DaemonThreads.named("perftest-R");
    }

    @AfterAll
    static void close() {
        threads.shutdownNow();
        fabric.close();
    }

    @ParameterizedTest
    @EnumSource(Perftest.Test.class)
    @DisplayName("-R: rdma_cm connects the out-of-band QP and the test QP; the exchange is rxe_rping_cm.pcap's; both sides finish")
    void runsOverRdmaCm(Perftest.Test test) throws Exception {
        watch();

        CompletableFuture<Integer> listening = new CompletableFuture<>();
        Future<Result> server = threads.submit(() -> perftest(options(test, null), listening::complete, serverCm));
        listening.get(30, TimeUnit.SECONDS);
        Future<Result> client = threads.submit(() -> perftest(options(test, SERVER_IP), port -> { }, clientCm));
        Result clientResult = client.get(120, TimeUnit.SECONDS);
        Result serverResult = server.get(120, TimeUnit.SECONDS);

        assertThat(serverResult.exit()).as("server: " + serverResult.err() + serverResult.out()).isZero();
        assertThat(clientResult.exit()).as("client: " + clientResult.err() + clientResult.out()).isZero();
        for (Result result : List.of(serverResult, clientResult)) {
            assertThat(result.out()).contains(" rdma_cm QPs\t : ON", " Data ex. method : rdma_cm");
        }
        assertThat(serverResult.out()).contains(" Waiting for client rdma_cm QP to connect");

        // Each side's out-of-band QP is where the peer's first SEND goes; the parts, in order.
        List<byte[]> fromClient = parts(CLIENT_MAC);
        List<byte[]> fromServer = parts(SERVER_MAC);
        HexFormat hex = HexFormat.of();
        assertThat(fromClient.get(0)).isEqualTo(hex.parseHex("362e3036000000000000000000000000"));
        assertThat(fromClient.get(1)).isEqualTo(hex.parseHex("00001000"));
        assertThat(fromClient.get(2)).isEqualTo(hex.parseHex("00000040"));
        assertThat(fromClient.get(3)).isEqualTo(hex.parseHex("3300"));
        assertThat(fromClient.get(4)).isEqualTo(new byte[56]);
        assertThat(fromClient.get(5)).isEqualTo(new byte[56]);
        // Then the record of the test QP (-x 1 in its gid_index), not the out-of-band one.
        PerftestAddress record = PerftestAddress.decodeFromRdmaCm(fromClient.get(6));
        assertThat(record.qpn()).isNotZero().isNotEqualTo(sends.stream()
                .filter(send -> send.source().equals(SERVER_MAC)).findFirst().orElseThrow().destQp());
        assertThat(Arrays.copyOfRange(fromClient.get(6), 52, 56)).isEqualTo(hex.parseHex("00000001"));
        assertThat(record.gid().raw()).endsWith((byte) 10, (byte) 0, (byte) 3, (byte) 2);
        assertThat(fromClient).allSatisfy(part -> assertThat(part.length).isIn(2, 4, 8, 16, 56));
        assertThat(fromClient).noneSatisfy(part -> assertThat(part).isEqualTo(PerftestHandshake.DONE));
        // Two REQs to port 18515: the out-of-band QP's (its verb SEND: no read depths), then the test
        // QP's (out_reads both ways for READ and atomics); retries 7 and 7; no private data of perftest's.
        assertThat(requests).hasSize(2).allSatisfy(req -> {
            assertThat(req.serviceId()).isEqualTo(SERVICE_ID);
            assertThat(req.retryCount()).isEqualTo(7);
            assertThat(req.rnrRetryCount()).isEqualTo(7);
            assertThat(Arrays.copyOfRange(req.privateData(), CmaHeader.LENGTH, req.privateData().length))
                    .containsOnly((byte) 0);
        });
        assertThat(requests.get(0).responderResources()).isZero();
        assertThat(requests.get(0).initiatorDepth()).isZero();
        boolean reads = test.verb() == Perftest.Verb.READ || test.verb() == Perftest.Verb.ATOMIC;
        assertThat(requests.get(1).responderResources() > 0).isEqualTo(reads);
        assertThat(requests.get(1).initiatorDepth()).isEqualTo(requests.get(1).responderResources());
        assertThat(requests.get(1).localQpn()).isEqualTo(record.qpn());
        // Every id destroyed on both hosts: no port stays bound (connections may still be in timewait).
        assertThat(serverCm.footprint().boundPorts()).as("server ports").isZero();
        assertThat(clientCm.footprint().boundPorts()).as("client ports").isZero();
        // Every exchange is symmetric: the server answers each part with one of the same size.
        assertThat(fromServer).extracting(part -> part.length)
                .containsExactlyElementsOf(fromClient.stream().map(part -> part.length).toList());
    }

    /** The SEND payloads {@code source} sent to the QP its first SEND went to (its peer's out-of-band QP). */
    private List<byte[]> parts(MacAddress source) {
        List<Send> mine = sends.stream().filter(send -> send.source().equals(source)).toList();
        int outOfBand = mine.getFirst().destQp();
        return mine.stream().filter(send -> send.destQp() == outOfBand).map(Send::payload).toList();
    }

    private static Perftest.Options options(Perftest.Test test, String host) {
        long size = test.verb() == Perftest.Verb.ATOMIC ? 8 : test.latency() ? 2 : 4096;
        return new Perftest.Options(test, host, 18515, host == null ? "cm0" : "cm1", 1, 1, size, false,
                test.latency() ? 20 : 50, 0, null, 128, 1, Perftest.Atomic.FETCH_AND_ADD, true, 14);
    }

    private static Result perftest(Perftest.Options options, java.util.function.IntConsumer listening,
                                   ConnectionManager cm) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = new Perftest(options, new PrintWriter(out), new PrintWriter(err), DeviceSelector.of(devices),
                listening, new SplittableRandom(14), cm).run();
        return new Result(exit, out.toString(), err.toString());
    }

    /** Keeps the payload of every RC SEND Only and every REQ on the fabric (this test's own), delivering all unchanged. */
    private void watch() {
        sends.clear();
        requests.clear();
        fabric.filter((frame, length, transmit, nominal) -> {
            if (length > BTH + 16 && (frame[12] & 0xFF) == 0x08 && frame[13] == 0 && frame[23] == 17
                    && (frame[BTH] & 0xFF) == SEND_ONLY) {
                long mac = 0;
                for (int i = 6; i < 12; i++) {
                    mac = mac << 8 | (frame[i] & 0xFF);
                }
                int qp = (frame[BTH + 5] & 0xFF) << 16 | (frame[BTH + 6] & 0xFF) << 8 | frame[BTH + 7] & 0xFF;
                int pad = (frame[BTH + 1] >> 4) & 0x3;
                sends.add(new Send(new MacAddress(mac), qp, Arrays.copyOfRange(frame, BTH + 12, length - 4 - pad)));
            }
            if (length >= BTH + 12 + DETH + MadHeader.MAD_SIZE && (frame[12] & 0xFF) == 0x08 && frame[13] == 0
                    && frame[23] == 17 && (frame[BTH] & 0xFF) == UD_SEND_ONLY
                    && CmMad.decode(frame, BTH + 12 + DETH, MadHeader.MAD_SIZE) instanceof DecodedCmMad.Decoded mad
                    && mad.message() instanceof ConnectRequest request) {
                requests.add(request);
            }
            return nominal;
        });
    }

    private static Inet4Address ipv4(String text) throws IOException {
        return (Inet4Address) InetAddress.getByName(text);
    }
}
