package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.QpState;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.mad.CmMad;
import org.roce4j.wire.mad.ConnectReject;
import org.roce4j.wire.mad.ConnectRequest;
import org.roce4j.wire.mad.DecodedCmMad;
import org.roce4j.wire.mad.MadHeader;

/**
 * perftest's server listens for the test's connection only after the sync that lets its client go
 * on, so the client's REQ may find the port closed; perftest's client then tries again, up to ten
 * times, 100 ms apart ({@code rdma_cm_client_connection}). Ours must too: stop 29's CI hung when
 * roce4j's client gave up at the first REJ and its next run's out-of-band REQ met the server's
 * test listener.
 */
class PerftestCmRetryTest {
    private static final String SERVER_IP = "10.0.5.1";
    private static final int UD_SEND_ONLY = 0x64;
    private static final int BTH = 14 + 20 + 8;
    private static final int DETH = 8;
    /** Each test its own port: a listener a failed test leaves behind takes no other test's REQ. */
    private static final int LATE_LISTENER_PORT = 18600;
    private static final int NO_LISTENER_PORT = 18601;

    private static Fabric fabric;
    private static EmulatedCm serverCm;
    private static EmulatedCm clientCm;
    private static ExecutorService threads;
    private final List<ConnectRequest> requests = Collections.synchronizedList(new ArrayList<>());
    private final List<ConnectReject> rejects = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void fabric() throws IOException {
        fabric = Fabric.threaded();
        serverCm = EmulatedCm.of(SoftRnic.attach(fabric, "cm0", MacAddress.parse("02:00:00:00:05:01"), ipv4(SERVER_IP)));
        clientCm = EmulatedCm.of(SoftRnic.attach(fabric, "cm1", MacAddress.parse("02:00:00:00:05:02"), ipv4("10.0.5.2")));
        threads = DaemonThreads.named("perftest-R-retry");
    }

    @AfterAll
    static void close() {
        threads.shutdownNow();
        fabric.close();
    }

    @BeforeEach
    void watch() {
        fabric.filter((frame, length, transmit, nominal) -> {
            if (length >= BTH + 12 + DETH + MadHeader.MAD_SIZE && (frame[BTH] & 0xFF) == UD_SEND_ONLY
                    && CmMad.decode(frame, BTH + 12 + DETH, MadHeader.MAD_SIZE) instanceof DecodedCmMad.Decoded mad) {
                switch (mad.message()) {
                    case ConnectRequest request -> requests.add(request);
                    case ConnectReject reject -> rejects.add(reject);
                    default -> { }
                }
            }
            return nominal;
        });
    }

    @Test
    @Timeout(60)
    void aClientWhoseRequestsFindThePortClosedTryEachAgainWithANewQpUntilTheServerListens() throws Exception {
        VerbsSteps serverSteps = new VerbsSteps();
        VerbsSteps clientSteps = new VerbsSteps();
        try (Arena arena = Arena.ofShared()) {
            // Two QPs (-q 2): each connection is tried again on its own.
            PerftestCmConnection client = PerftestCmConnection.resolve(clientCm, options(SERVER_IP, 2), clientSteps);
            PerftestResources res = PerftestResources.create(client.context(), arena, clientSteps,
                    options(SERVER_IP, 2), 1, 1, client.qps(clientSteps));
            List<Integer> firstQpns = List.of(res.qps[0].qpNum(), res.qps[1].qpNum());
            // The server listens 350 ms after the client's first REQs: a few REJs for each QP before (at least one).
            Future<?> server = threads.submit(() -> {
                Thread.sleep(350);
                PerftestCmConnection listening = PerftestCmConnection.listen(serverCm, options(null, 2), serverSteps, () -> { });
                PerftestResources serverRes = PerftestResources.create(listening.context(), arena, serverSteps,
                        options(null, 2), 1, 1, listening.qps(serverSteps));
                listening.establish(options(null, 2), 1, serverRes);
                return null;
            });

            client.establish(options(SERVER_IP, 2), 1, res);
            server.get(10, TimeUnit.SECONDS);

            assertThat(rejects).as("REJs before the server listened").hasSizeBetween(2, 18)
                    .allSatisfy(reject -> assertThat(reject.reason()).isEqualTo(8)); // IB_CM_REJ_INVALID_SERVICE_ID
            assertThat(requests).hasSize(rejects.size() + 2);
            // Each try's REQ names a new QP; the last two are the QPs the run goes on with, connected.
            assertThat(requests.stream().map(ConnectRequest::localQpn).distinct()).hasSize(requests.size());
            assertThat(requests.subList(0, 2)).extracting(ConnectRequest::localQpn)
                    .containsExactlyInAnyOrderElementsOf(firstQpns);
            assertThat(List.of(res.qps[0].qpNum(), res.qps[1].qpNum())).containsExactlyInAnyOrderElementsOf(
                    requests.subList(requests.size() - 2, requests.size()).stream().map(ConnectRequest::localQpn).toList());
            assertThat(res.qps).allSatisfy(qp -> assertThat(qp.state()).isEqualTo(QpState.RTS));
        } finally {
            PerftestCmLink.closeAll(clientSteps);
            PerftestCmLink.closeAll(serverSteps);
        }
        assertThat(clientCm.footprint().boundPorts()).as("client ports").isZero();
    }

    @Test
    @Timeout(60)
    void aClientGivesUpAfterTenTriesWithPerftestsMessage() throws Exception {
        VerbsSteps steps = new VerbsSteps();
        try (Arena arena = Arena.ofShared()) {
            PerftestCmConnection client = PerftestCmConnection.resolve(clientCm, options(SERVER_IP), steps);
            PerftestResources res = PerftestResources.create(client.context(), arena, steps, options(SERVER_IP),
                    1, 1, client.qps(steps));

            assertThatThrownBy(() -> client.establish(options(SERVER_IP), 1, res))
                    .isInstanceOf(PingpongFailure.class)
                    .hasMessageContaining("Event: RDMA_CM_EVENT_REJECTED")
                    .hasMessageContaining("Failed to connect RDMA CM client, tried 10 times.");
            assertThat(requests).hasSize(PerftestCmConnection.CONNECT_TRIES);
        } finally {
            PerftestCmLink.closeAll(steps);
        }
        assertThat(clientCm.footprint().boundPorts()).as("client ports").isZero();
    }

    private static Perftest.Options options(String host) {
        return options(host, 1, NO_LISTENER_PORT);
    }

    private static Perftest.Options options(String host, int qps) {
        return options(host, qps, LATE_LISTENER_PORT);
    }

    private static Perftest.Options options(String host, int qps, int port) {
        return new Perftest.Options(Perftest.Test.WRITE_BW, host, port, host == null ? "cm0" : "cm1", 1, 1, 4096, false,
                20, 0, null, 128, qps, Perftest.Atomic.FETCH_AND_ADD, true, 14);
    }

    private static Inet4Address ipv4(String text) throws IOException {
        return (Inet4Address) InetAddress.getByName(text);
    }
}
