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
 * The rdma_cm tools with {@code -d emu:ADDRESS} on both sides, as against Linux rxe in
 * interop/rdma-cm and interop/perftest: two emulated RNICs on loopback UDP port 4791, each the one
 * device of its own host's connection manager, so the CM MADs and the data cross real UDP.
 */
class CmToolsOverUdpTest {
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
    @DisplayName("ib_write_bw -R -d emu:127.0.0.4 / -d emu:127.0.0.5: the rdma_cm ids live on the emulated RNICs the tool "
            + "opened (not on the host's librdmacm), both sides print their result row")
    void perftestRdmaCmOverUdp() throws Exception {
        CompletableFuture<Integer> port = new CompletableFuture<>();
        String[] common = {"-s", "8192", "-m", "1024", "-n", "20", "-R"};
        CompletableFuture<CmToolRuns.Result> server = CompletableFuture.supplyAsync(
                () -> run(port, concat(new String[] {"write-bw", "-d", "emu:127.0.0.4", "-p", "18515"}, common)));
        // perftest -R listens twice on its port (the control QP, then the test QPs): -p 0 would move the second.
        String listening = Integer.toString(port.get(30, TimeUnit.SECONDS));

        CmToolRuns.Result client = run(new CompletableFuture<>(),
                concat(new String[] {"write-bw", "-d", "emu:127.0.0.5", "-p", listening}, common, new String[] {"127.0.0.4"}));
        assertThat(client.exit()).as(client.toString()).isZero();
        CmToolRuns.Result served = server.get(60, TimeUnit.SECONDS);

        assertThat(served.exit()).as(served.toString()).isZero();
        assertThat(client.out()).as(client.toString()).containsPattern("(?m)^ 8192 +20 +[0-9.]+ +[0-9.]+");
        assertThat(served.out()).as(served.toString()).containsPattern("(?m)^ 8192 +20 +[0-9.]+ +[0-9.]+");
    }

    private static String[] concat(String[]... parts) {
        return java.util.Arrays.stream(parts).flatMap(java.util.Arrays::stream).toArray(String[]::new);
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
