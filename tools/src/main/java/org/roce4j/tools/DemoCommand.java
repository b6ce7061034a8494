package org.roce4j.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.FabricCounters;
import org.roce4j.emulator.fabric.FaultCounters;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.wire.DropReason;
import org.roce4j.verbs.Mtu;
import org.roce4j.wire.MacAddress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code roce4j demo [--pcap FILE] [--mtu BYTES] [--loss P] [--reorder P] [--duplicate P] [--corrupt P]
 * [--seed N]}: two emulated RNICs doing one of each RC operation, optionally over a faulty link.
 */
@Command(name = "demo",
        description = {
            "Two emulated RoCEv2 nodes connected by an RC queue pair do SEND, SEND with immediate,",
            "RDMA WRITE, RDMA WRITE with immediate, RDMA READ, FETCH_AND_ADD and CMP_AND_SWP,",
            "multi-packet messages included. Prints each completion, checks the data on both sides,",
            "and writes every frame to a pcap that Wireshark reads.",
            "",
            "",
            "With --loss, --reorder, --duplicate or --corrupt the link between the two nodes is faulty",
            "(both directions, every frame, chosen by --seed: the same seed replays the same run) and the",
            "RNICs must still get every completion and every byte right; the demo then says what the",
            "faults did and how the RNICs recovered. The capture shows frames as the RNICs sent them.",
            "",
            "Exit code 0 when every completion and every byte is right, 1 otherwise (also when the run",
            "gets stuck waiting for a completion), 2 for a usage error.",
            ""})
final class DemoCommand implements Callable<Integer> {
    static final String DEFAULT_FILE = "demo.pcap";
    static final Mtu DEFAULT_MTU = Mtu.MTU_1024;
    /** How far a reordered frame may be held back: later frames sent within it overtake it. */
    static final Duration REORDER_WINDOW = Duration.ofNanos(8_000);

    @Option(names = "--pcap", paramLabel = "FILE", defaultValue = DEFAULT_FILE,
            description = "where to write the capture (default: ${DEFAULT-VALUE})")
    private Path pcap;

    @Option(names = "--mtu", paramLabel = "BYTES", defaultValue = "1024",
            description = "path MTU: 256, 512, 1024, 2048 or 4096 (default: ${DEFAULT-VALUE})")
    private int mtu;

    @Option(names = "--loss", paramLabel = "P", defaultValue = "0",
            description = "probability that a frame is lost, 0..1 (default: ${DEFAULT-VALUE})")
    private double loss;

    @Option(names = "--reorder", paramLabel = "P", defaultValue = "0",
            description = "probability that a frame is held back up to 8 µs, so later ones overtake it, 0..1")
    private double reorder;

    @Option(names = "--duplicate", paramLabel = "P", defaultValue = "0",
            description = "probability that a frame is delivered twice, 0..1")
    private double duplicate;

    @Option(names = "--corrupt", paramLabel = "P", defaultValue = "0",
            description = "probability that a byte of a frame is changed (the receiver's ICRC check drops it), 0..1")
    private double corrupt;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
            description = "seed of every fault decision (default: ${DEFAULT-VALUE})")
    private long seed;

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
        String badProbability = notProbability("--loss", loss) + notProbability("--reorder", reorder)
                + notProbability("--duplicate", duplicate) + notProbability("--corrupt", corrupt);
        if (!badProbability.isEmpty()) {
            return Roce4j.fail(spec, badProbability.strip());
        }
        PrintWriter out = spec.commandLine().getOut();
        try {
            boolean correct = run(pcap, pathMtu, faults(seed, loss, reorder, duplicate, corrupt), out);
            return correct ? 0 : 1;
        } catch (IOException e) {
            return Roce4j.fail(spec, pcap + ": " + e);
        }
    }

    private static String notProbability(String option, double p) {
        return p >= 0 && p <= 1 ? "" : option + " must be a probability from 0 to 1, not " + p + " ";
    }

    /** {@return the demo's fault plan: each probability for every frame in both directions} */
    static Faults faults(long seed, double loss, double reorder, double duplicate, double corrupt) {
        Faults plan = Faults.seeded(seed);
        plan = loss > 0 ? plan.drop(loss) : plan;
        plan = reorder > 0 ? plan.reorder(reorder, REORDER_WINDOW) : plan;
        plan = duplicate > 0 ? plan.duplicate(duplicate) : plan;
        return corrupt > 0 ? plan.corrupt(corrupt) : plan;
    }

    /** Runs the demo with no faults; true when everything checked out. */
    static boolean run(Path pcapFile, Mtu mtu, PrintWriter out) throws IOException {
        return run(pcapFile, mtu, Faults.seeded(1), out);
    }

    /**
     * Runs the demo on a deterministic fabric (virtual time, so the capture is the same bytes on
     * every run) with {@code faults} unless it has no rules, and writes the capture; true when
     * everything checked out.
     */
    static boolean run(Path pcapFile, Mtu mtu, Faults faults, PrintWriter out) throws IOException {
        try (Fabric fabric = Fabric.deterministic()) {
            fabric.tap(pcapFile);
            if (!faults.isEmpty()) {
                fabric.faults(faults);
            }
            SoftRnic a = SoftRnic.attach(fabric, "rxe0", MacAddress.parse("02:00:00:00:00:0a"), ipv4("10.0.0.1"));
            SoftRnic b = SoftRnic.attach(fabric, "rxe1", MacAddress.parse("02:00:00:00:00:0b"), ipv4("10.0.0.2"));
            out.printf("roce4j demo: %s (10.0.0.1) and %s (10.0.0.2), emulated RoCEv2 on an in-process fabric%n",
                    a.name(), b.name());
            if (!faults.isEmpty()) {
                out.printf("%s%n", faults.describe());
            }
            DemoScenario scenario = new DemoScenario(out, mtu);
            boolean correct = scenario.run(a.device(), b.device());
            // The tap records each frame as it reaches the wire: a duplicated one twice, a dropped one as sent.
            FabricCounters counters = fabric.counters();
            out.printf("%d frames written to %s%n", counters.framesTransmitted() + counters.framesDuplicatedByFilter(),
                    pcapFile);
            if (!faults.isEmpty()) {
                printRecovery(out, fabric.faultCounters(), a, b, faults.seed());
            }
            String replay = faults.isEmpty() ? "no faults" : "seed " + faults.seed() + ": the same options replay this run";
            if (scenario.stuck()) {
                out.printf("STUCK at %s; the fabric went idle with nothing left to do (%s)%n", scenario.stuckAt(), replay);
            } else if (!correct && !faults.isEmpty()) {
                out.printf("WRONG under faults (%s)%n", replay);
            }
            return correct;
        }
    }

    private static void printRecovery(PrintWriter out, FaultCounters did, SoftRnic a, SoftRnic b, long seed) {
        out.printf("faults (seed %d): %d dropped, %d duplicated, %d corrupted (%d caught by an ICRC check),"
                        + " %d reordered%n", seed, did.dropped(), did.duplicated(), did.corrupted(),
                a.dropped(DropReason.BAD_ICRC) + b.dropped(DropReason.BAD_ICRC), did.reordered());
        out.printf("recovery: %d retransmissions (requester went back), %d NAKs sent (%d RNR), %d duplicate"
                        + " requests seen%n", sum(a, b, RnicCounter.RETRIES), sum(a, b, RnicCounter.NAKS_SENT),
                sum(a, b, RnicCounter.RNR_NAKS_SENT), sum(a, b, RnicCounter.DUPLICATE_REQUESTS));
    }

    private static long sum(SoftRnic a, SoftRnic b, RnicCounter counter) {
        return a.counter(counter) + b.counter(counter);
    }

    private static Inet4Address ipv4(String literal) {
        try {
            return (Inet4Address) InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }
}
