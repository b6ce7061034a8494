package org.roce4j.tools;

import java.security.SecureRandom;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.roce4j.cm.ConnectionManager;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * The perftest 6.06 tools' command lines, with perftest's letters and defaults; each tool takes the
 * options its C twin takes ({@code -s}/{@code -a} all but the atomics, {@code -q}/{@code -t} the
 * bandwidth tests, {@code -A} the atomics). Exit 0 on success, 1 when the run fails, 2 for a usage
 * error.
 */
abstract class PerftestCommand extends PeerCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "HOST",
            description = "connect to the server at HOST; without it, start a server and wait for a connection")
    String host;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "18515", converter = PingpongCommand.CNumber.class,
            description = "listen on/connect to port PORT (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV",
            description = "use IB device DEV (default first device found); emu:ADDRESS or emu:IFNAME makes an emulated RNIC")
    String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", defaultValue = "1", converter = PingpongCommand.CNumber.class,
            description = "use port PORT of IB device (default ${DEFAULT-VALUE})")
    int ibPort;

    @Option(names = {"-x", "--gid-index"}, paramLabel = "INDEX", defaultValue = "1", converter = PingpongCommand.CNumber.class,
            description = "GID index of the local port (RoCE; default ${DEFAULT-VALUE})")
    int gidIndex;

    @Option(names = {"-n", "--iters"}, paramLabel = "ITERS", converter = PingpongCommand.CNumber.class,
            description = "number of exchanges (at least 5)")
    Integer iters;

    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", converter = PingpongCommand.CNumber.class,
            description = "MTU size: 256 - 4096 (default the port's active MTU)")
    Integer mtuBytes;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS", converter = PingpongCommand.CNumber.class,
            description = "run for SECONDS instead of a number of iterations, measuring all but a margin at each end")
    Integer duration;

    @Option(names = {"-u", "--qp-timeout"}, paramLabel = "TIMEOUT", defaultValue = "14", converter = PingpongCommand.CNumber.class,
            description = "QP timeout, timeout value is 4 usec * 2 ^(timeout), default ${DEFAULT-VALUE}")
    int qpTimeout;

    @Option(names = {"-R", "--rdma_cm"}, description = "connect the QPs with rdma_cm and exchange data over an rdma_cm QP "
            + "(no TCP; both sides)")
    boolean rdmaCm;

    @Option(names = {"-F", "--CPU-freq"}, description = "do not warn about CPU frequency scaling (roce4j never does)")
    boolean cpuFreq;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    /** The test this command runs, named by the command: {@code write-lat} runs WRITE_LAT. */
    final Perftest.Test test() {
        return Perftest.Test.valueOf(spec.name().toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    /** perftest's default iterations: 1000, but 5000 for write_bw. */
    int defaultIters() {
        return 1000;
    }

    /** {@code -s}/{@code -a}; the atomics have neither (8-byte operations). */
    Sizes sizes() {
        return null;
    }

    /** {@code -q}/{@code -t}; the latency tests have neither (one QP, one request in flight). */
    Depths depths() {
        return null;
    }

    Perftest.Atomic atomic() {
        return Perftest.Atomic.FETCH_AND_ADD;
    }

    @Override
    public Integer call() {
        Sizes sizes = sizes();
        Depths depths = depths();
        boolean latency = test().latency();
        int messageSize = sizes == null ? 8 : sizes.size != null ? sizes.size : latency ? 2 : 65536;
        boolean allSizes = sizes != null && sizes.all;
        int iterations = iters == null ? defaultIters() : iters;
        int qps = depths == null ? 1 : depths.qps;
        int txDepth = depths == null ? 1 : depths.txDepth;
        if (port < 0 || port > 65535) {
            throw usage("port " + port + " is not a TCP port (0..65535)");
        }
        if (duration != null && duration < 1) {
            throw usage("-D/--duration: the duration must be 1 second or more");
        }
        if (duration != null && allSizes) {
            throw usage("-a and -D cannot be used together");
        }
        if (messageSize < 1 || messageSize > 1 << Perftest.Options.ALL_SIZES_LOG2) {
            throw usage(" Size should be between 1 and " + (1 << Perftest.Options.ALL_SIZES_LOG2));
        }
        if (iterations < 5 || iterations > 100_000_000) {
            throw usage(" Iteration num should be between 5 and 100000000");
        }
        if (qps < 1 || qps > 16) {
            throw usage("-q: roce4j runs 1 to 16 QPs");
        }
        if (txDepth < 1) {
            throw usage("-t must be 1 or more");
        }
        if (qpTimeout < 0 || qpTimeout > 31) {
            throw usage("-u/--qp-timeout: the local ACK timeout exponent is 0 to 31 (ibv_qp_attr.timeout has 5 bits)");
        }
        Perftest.Options options = new Perftest.Options(test(), host, port, ibDev, ibPort, gidIndex, messageSize, allSizes,
                iterations, duration == null ? 0 : duration, mtuBytes == null ? null : PingpongCommand.parseMtu(spec, mtuBytes), txDepth, qps, atomic(),
                rdmaCm, qpTimeout);
        DeviceSelector devices = environment.devices();
        ConnectionManager cm = CmDevices.systemConnectionManager();
        if (rdmaCm && ibDev != null && ibDev.startsWith(DeviceSelector.EMULATED_PREFIX)) {
            // -R on emu:: the rdma_cm ids must live on the emulated RNIC the tool opens, not on the host's librdmacm.
            EmuDevices.SharedWithConnectionManager shared = new EmuDevices.SharedWithConnectionManager();
            devices = shared.selector();
            cm = shared.connectionManager();
        }
        return new Perftest(options, spec.commandLine().getOut(), spec.commandLine().getErr(), devices,
                environment.listening(), new SecureRandom(), cm).run();
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** {@code -s} and {@code -a}. */
    static final class Sizes {
        @Option(names = {"-s", "--size"}, paramLabel = "SIZE", converter = PingpongCommand.CNumber.class,
                description = "size of message to exchange (default 2 for latency, 65536 for bandwidth tests)")
        Integer size;

        @Option(names = {"-a", "--all"}, description = "run sizes from 2 till 2^23")
        boolean all;
    }

    /** {@code -q} and {@code -t}. */
    static final class Depths {
        @Option(names = {"-q", "--qp"}, paramLabel = "NUM", defaultValue = "1", converter = PingpongCommand.CNumber.class,
                description = "number of QPs (default ${DEFAULT-VALUE})")
        int qps;

        @Option(names = {"-t", "--tx-depth"}, paramLabel = "DEPTH", defaultValue = "128",
                converter = PingpongCommand.CNumber.class, description = "size of the tx queue (default ${DEFAULT-VALUE})")
        int txDepth;
    }

    /** {@code -A}. */
    static final class AtomicType {
        @Option(names = {"-A", "--atomic_type"}, paramLabel = "TYPE", defaultValue = "FETCH_AND_ADD",
                description = "type of atomic operation from {CMP_AND_SWAP,FETCH_AND_ADD} (default ${DEFAULT-VALUE})")
        Perftest.Atomic type;
    }

    /** A test with {@code -s} and {@code -a}: every one but the atomics. */
    abstract static class SizedCommand extends PerftestCommand {
        @Mixin
        Sizes sizes;

        @Override
        Sizes sizes() {
            return sizes;
        }
    }

    /** A bandwidth test with {@code -s}/{@code -a} and {@code -q}/{@code -t}. */
    abstract static class SizedDepthCommand extends SizedCommand {
        @Mixin
        Depths depths;

        @Override
        Depths depths() {
            return depths;
        }
    }

    @Command(name = "write-lat", sortOptions = false, description = {"Like perftest's ib_write_lat: RC RDMA WRITE "
            + "ping-pong latency, speaking perftest 6.06's TCP exchange (port 18515), so either side can be the C tool.", ""})
    static final class WriteLat extends SizedCommand {
    }

    @Command(name = "write-bw", sortOptions = false, description = {"Like perftest's ib_write_bw: RC RDMA WRITE "
            + "bandwidth, speaking perftest 6.06's TCP exchange (port 18515), so either side can be the C tool.", ""})
    static final class WriteBw extends SizedDepthCommand {
        @Override
        int defaultIters() {
            return 5000;
        }
    }

    @Command(name = "read-lat", sortOptions = false, description = {"Like perftest's ib_read_lat: RC RDMA READ latency "
            + "(the client reads, the server's memory is read), speaking perftest 6.06's TCP exchange (port 18515).", ""})
    static final class ReadLat extends SizedCommand {
    }

    @Command(name = "read-bw", sortOptions = false, description = {"Like perftest's ib_read_bw: RC RDMA READ bandwidth, "
            + "speaking perftest 6.06's TCP exchange (port 18515), so either side can be the C tool.", ""})
    static final class ReadBw extends SizedDepthCommand {
    }

    @Command(name = "send-lat", sortOptions = false, description = {"Like perftest's ib_send_lat: RC SEND ping-pong "
            + "latency, speaking perftest 6.06's TCP exchange (port 18515), so either side can be the C tool.", ""})
    static final class SendLat extends SizedCommand {
    }

    @Command(name = "send-bw", sortOptions = false, description = {"Like perftest's ib_send_bw: RC SEND bandwidth (the "
            + "client sends, the server receives), speaking perftest 6.06's TCP exchange (port 18515).", ""})
    static final class SendBw extends SizedDepthCommand {
    }

    @Command(name = "atomic-lat", sortOptions = false, description = {"Like perftest's ib_atomic_lat: RC atomic latency "
            + "(8-byte FETCH_AND_ADD or CMP_AND_SWAP), speaking perftest 6.06's TCP exchange (port 18515).", ""})
    static final class AtomicLat extends PerftestCommand {
        @Mixin
        AtomicType atomicType;

        @Override
        Perftest.Atomic atomic() {
            return atomicType.type;
        }
    }

    @Command(name = "atomic-bw", sortOptions = false, description = {"Like perftest's ib_atomic_bw: RC atomic bandwidth "
            + "(8-byte FETCH_AND_ADD or CMP_AND_SWAP), speaking perftest 6.06's TCP exchange (port 18515).", ""})
    static final class AtomicBw extends PerftestCommand {
        @Mixin
        AtomicType atomicType;

        @Mixin
        Depths depths;

        @Override
        Perftest.Atomic atomic() {
            return atomicType.type;
        }

        @Override
        Depths depths() {
            return depths;
        }
    }
}
