package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Mtu;
import org.roce4j.wire.MacAddress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code roce4j demo [--pcap FILE]}: two emulated RNICs doing one of each RC operation. */
@Command(name = "demo",
        description = {
            "Two emulated RoCEv2 nodes connected by an RC queue pair do SEND, SEND with immediate,",
            "RDMA WRITE, RDMA WRITE with immediate, RDMA READ, FETCH_AND_ADD and CMP_AND_SWP,",
            "multi-packet messages included. Prints each completion, checks the data on both sides,",
            "and writes every frame to a pcap that Wireshark reads.",
            "",
            "Exit code 0 when every completion and every byte is right, 1 otherwise.",
            ""})
final class DemoCommand implements Callable<Integer> {
    static final String DEFAULT_FILE = "demo.pcap";
    static final Mtu DEFAULT_MTU = Mtu.MTU_1024;

    @Option(names = "--pcap", paramLabel = "FILE", defaultValue = DEFAULT_FILE,
            description = "where to write the capture (default: ${DEFAULT-VALUE})")
    private Path pcap;

    @Option(names = "--mtu", paramLabel = "BYTES", defaultValue = "1024",
            description = "path MTU: 256, 512, 1024, 2048 or 4096 (default: ${DEFAULT-VALUE})")
    private int mtu;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        Mtu pathMtu;
        try {
            pathMtu = Mtu.ofBytes(mtu);
        } catch (IllegalArgumentException e) {
            return Roce4j.fail(spec, e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        try {
            boolean correct = run(pcap, pathMtu, out);
            return correct ? 0 : 1;
        } catch (IOException e) {
            return Roce4j.fail(spec, pcap + ": " + e);
        }
    }

    /**
     * Runs the demo on a deterministic fabric (virtual time, so the capture is the same bytes on
     * every run) and writes the capture; true when everything checked out.
     */
    static boolean run(Path pcapFile, Mtu mtu, PrintWriter out) throws IOException {
        try (Fabric fabric = Fabric.deterministic()) {
            fabric.tap(pcapFile);
            SoftRnic a = SoftRnic.attach(fabric, "rxe0", MacAddress.parse("02:00:00:00:00:0a"), ipv4("10.0.0.1"));
            SoftRnic b = SoftRnic.attach(fabric, "rxe1", MacAddress.parse("02:00:00:00:00:0b"), ipv4("10.0.0.2"));
            out.printf("roce4j demo: %s (10.0.0.1) and %s (10.0.0.2), emulated RoCEv2 on an in-process fabric%n",
                    a.name(), b.name());
            boolean correct = new DemoScenario(out, mtu).run(a.device(), b.device());
            out.printf("%d frames written to %s%n", fabric.counters().framesTransmitted(), pcapFile);
            return correct;
        }
    }

    private static Inet4Address ipv4(String literal) {
        try {
            return (Inet4Address) InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }
}
