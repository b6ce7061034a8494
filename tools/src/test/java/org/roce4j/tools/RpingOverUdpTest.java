package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * rping with {@code -d emu:ADDRESS} on both sides, as against Linux rxe in interop/rping: two
 * emulated RNICs on loopback UDP port 4791 (127.0.0.2 and 127.0.0.3), each the one device of its
 * own host's connection manager, so the CM MADs and the pings cross real UDP.
 */
class RpingOverUdpTest {
    /** A run whose -d emu: devices are made as a real run makes them; any other device is a failure. */
    private static CmToolRuns.Result run(CompletableFuture<Integer> listening, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CmDevices emuOnly = new CmDevices(() -> {
            throw new AssertionError("only -d emu: devices here");
        }, EmuDevices::openConnectionManager);
        PeerEnvironment environment = new PeerEnvironment(DeviceSelector.of(List.of()), listening::complete, emuOnly);
        int exit = Roce4j.run(new PrintWriter(out), new PrintWriter(err), environment, args);
        return new CmToolRuns.Result(exit, out.toString().replace(System.lineSeparator(), "\n"),
                err.toString().replace(System.lineSeparator(), "\n"));
    }

    @Test
    @DisplayName("rping -s -d emu:127.0.0.2 / rping -c -d emu:127.0.0.3 -C 10 -V -v: connected by CM MADs over UDP, "
            + "ten pings verified, both exit 0")
    void pingsOverUdp() throws Exception {
        CompletableFuture<Integer> port = new CompletableFuture<>();
        CompletableFuture<CmToolRuns.Result> server = CompletableFuture.supplyAsync(
                () -> run(port, "rping", "-s", "-d", "emu:127.0.0.2", "-a", "127.0.0.2", "-p", "0", "-C", "10", "-v"));
        String listening = Integer.toString(port.get(30, TimeUnit.SECONDS));

        CmToolRuns.Result client = run(new CompletableFuture<>(), "rping", "-c", "-d", "emu:127.0.0.3", "-a", "127.0.0.2",
                "-p", listening, "-C", "10", "-V", "-v");
        CmToolRuns.Result served = server.get(60, TimeUnit.SECONDS);

        assertThat(client.exit()).as(client.toString()).isZero();
        assertThat(served.exit()).as(served.toString()).isZero();
        assertThat(client.lines()).hasSize(10).allMatch(line -> line.startsWith("ping data: rdma-ping-"));
        assertThat(served.lines()).hasSize(10).allMatch(line -> line.startsWith("server ping data: rdma-ping-"));
    }
}
