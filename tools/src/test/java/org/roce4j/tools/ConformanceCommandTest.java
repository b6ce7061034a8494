package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.wire.MacAddress;

/** roce4j conformance runs the suite on the device -d names and reports each behaviour. */
class ConformanceCommandTest {
    private static Fabric fabric;
    private static PeerEnvironment environment;

    @TempDir
    Path folder;

    @BeforeAll
    static void attach() throws Exception {
        fabric = Fabric.deterministic();
        environment = new PeerEnvironment(DeviceSelector.of(List.of(
                SoftRnic.attach(fabric, "dev0", MacAddress.parse("52:54:00:00:77:02"),
                        (Inet4Address) InetAddress.getByName("192.168.77.2")).device())), port -> { });
    }

    @AfterAll
    static void close() {
        fabric.close();
    }

    @Test
    @DisplayName("-d dev0 --only: a header, a PASS line per behaviour with its rule, the counts last, exit 0")
    void selectedBehavioursPassOnTheEmulator() throws Exception {
        Path report = folder.resolve("report.txt");
        Run run = run("conformance", "-d", "dev0", "--only", "OpcodeTest|DiscoveryTest", "-o", report.toString());

        assertThat(run.err).isEmpty();
        assertThat(run.exit).isZero();
        List<String> lines = run.out.lines().toList();
        assertThat(lines.getFirst()).isEqualTo(
                "roce4j conformance: device dev0 (provider emulator), two contexts on it; known departures: none (0 listed)");
        List<String> verdicts = lines.stream().filter(line -> line.matches("[A-Z]+ +\\S.*")).toList();
        assertThat(verdicts).hasSizeGreaterThan(80).allMatch(line -> line.startsWith("PASS "));
        assertThat(verdicts).anyMatch(line -> line.startsWith("PASS       OpcodeTest: ") && line.contains("RDMA_WRITE"));
        assertThat(lines.getLast()).isEqualTo(verdicts.size() + " passed, 0 failed, 0 skipped");
        assertThat(Files.readAllLines(report)).isEqualTo(lines);
    }

    @Test
    @DisplayName("a listed departure that passes: reported; exit 0, or 1 with --strict")
    void strictFailsOnAStaleDeparture() throws Exception {
        Path list = Files.writeString(folder.resolve("mine.txt"), """
                # [1] this device says no
                DiscoveryTest#queryGid() | the call: EINVAL | [1]
                """);
        String[] args = {"conformance", "-d", "dev0", "--departures", list.toString(), "--only", "DiscoveryTest#queryGid\\("};

        Run lenient = run(args);
        assertThat(lenient.exit).isZero();
        assertThat(lenient.out).contains("PASS       DiscoveryTest: ibv_query_gid: RoCEv2 over IPv4 uses an IPv4-mapped GID "
                + "(::ffff:a.b.c.d)  -- listed as a mine.txt departure (the call: EINVAL), passes",
                "NOW PASSES (listed departure)  DiscoveryTest#queryGid()");

        String[] strict = java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.stream.Stream.of("--strict"))
                .toArray(String[]::new);
        assertThat(run(strict).exit).isEqualTo(1);
    }

    @Test
    @DisplayName("--only matching no test runs nothing and exits 1, strict or not")
    void selectionOfNoTestFails() {
        for (String[] args : List.of(new String[] {"conformance", "-d", "dev0", "--only", "NoSuchTest"},
                new String[] {"conformance", "-d", "dev0", "--only", "NoSuchTest", "--strict"})) {
            Run run = run(args);
            assertThat(run.exit).as(String.join(" ", args)).isEqualTo(1);
            assertThat(run.out).contains("NO TEST RAN: a conformance run must run at least one test")
                    .endsWith("0 passed, 0 failed, 0 skipped\n");
        }
    }

    @Test
    @DisplayName("an unknown device or departure list is a one-line usage error, exit 2")
    void cannotRunIsExitTwo() {
        Run noDevice = run("conformance", "-d", "mlx5_0");
        assertThat(noDevice.exit).isEqualTo(2);
        assertThat(noDevice.err).isEqualTo("roce4j conformance: IB device mlx5_0 not found\n");

        Run noAddress = run("conformance", "-d", "emu:nosuchif0");
        assertThat(noAddress.exit).isEqualTo(2);
        assertThat(noAddress.err).startsWith("roce4j conformance: cannot open device emu:nosuchif0 (");

        Run noList = run("conformance", "-d", "dev0", "--departures", "mlx5");
        assertThat(noList.exit).isEqualTo(2);
        assertThat(noList.err).isEqualTo("roce4j conformance: --departures mlx5: no departure list named 'mlx5' (known: rxe-6.1, rxe-6.12)\n");
        assertThat(noList.out).isEmpty();
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Roce4j.run(new PrintWriter(out), new PrintWriter(err), environment, args);
        return new Run(exit, out.toString().replace(System.lineSeparator(), "\n"), err.toString().replace(System.lineSeparator(), "\n"));
    }
}
