package org.roce4j.tools;

import java.security.SecureRandom;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The options perftest's write tools share, with perftest's letters and defaults; one subclass per
 * tool. Exit 0 on success, 1 when the run fails, 2 for a usage error.
 */
abstract class PerftestCommand implements Callable<Integer>, PeerEnvironment.User {
    @Spec
    CommandSpec spec;

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

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", converter = PingpongCommand.CNumber.class,
            description = "size of message to exchange")
    Integer size;

    @Option(names = {"-n", "--iters"}, paramLabel = "ITERS", converter = PingpongCommand.CNumber.class,
            description = "number of exchanges (at least 5)")
    Integer iters;

    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", converter = PingpongCommand.CNumber.class,
            description = "MTU size: 256 - 4096 (default the port's active MTU)")
    Integer mtuBytes;

    @Option(names = {"-q", "--qp"}, paramLabel = "NUM", defaultValue = "1", converter = PingpongCommand.CNumber.class,
            description = "number of QPs (only 1 for now)")
    int qps;

    @Option(names = {"-F", "--CPU-freq"}, description = "do not fail on CPU frequency warnings (accepted, no effect)")
    boolean cpuFreq;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    private PeerEnvironment environment = PeerEnvironment.system();

    @Override
    public void environment(PeerEnvironment peerEnvironment) {
        environment = peerEnvironment;
    }

    abstract Perftest.Test test();

    abstract int defaultSize();

    abstract int defaultIters();

    int txDepth() {
        return 1;
    }

    @Override
    public Integer call() {
        int messageSize = size == null ? defaultSize() : size;
        int iterations = iters == null ? defaultIters() : iters;
        if (port < 0 || port > 65535) {
            throw new ParameterException(spec.commandLine(), "port " + port + " is not a TCP port (0..65535)");
        }
        if (messageSize < 1) {
            throw new ParameterException(spec.commandLine(), " Size should be larger than 0");
        }
        if (iterations < 5) {
            throw new ParameterException(spec.commandLine(), " Iteration num should be between 5 and 100000000");
        }
        if (qps != 1) {
            throw new ParameterException(spec.commandLine(), "-q: only one QP is supported so far");
        }
        if (txDepth() < 1) {
            throw new ParameterException(spec.commandLine(), "-t must be 1 or more");
        }
        Perftest.Options options = new Perftest.Options(test(), host, port, ibDev, ibPort, gidIndex, messageSize, iterations,
                mtuBytes == null ? null : PingpongCommand.parseMtu(spec, mtuBytes), txDepth());
        return new Perftest(options, spec.commandLine().getOut(), spec.commandLine().getErr(), environment.devices(),
                environment.listening(), new SecureRandom()).run();
    }

    @Command(name = "write-lat", sortOptions = false,
            description = {"Like perftest's ib_write_lat: RC RDMA WRITE ping-pong latency, speaking perftest 6.06's TCP "
                + "exchange (port 18515), so either side can be the C tool.", ""})
    static final class WriteLat extends PerftestCommand {
        @Override
        Perftest.Test test() {
            return Perftest.Test.WRITE_LAT;
        }

        @Override
        int defaultSize() {
            return 2;
        }

        @Override
        int defaultIters() {
            return 1000;
        }
    }

    @Command(name = "write-bw", sortOptions = false,
            description = {"Like perftest's ib_write_bw: RC RDMA WRITE bandwidth, speaking perftest 6.06's TCP exchange "
                + "(port 18515), so either side can be the C tool.", ""})
    static final class WriteBw extends PerftestCommand {
        @Option(names = {"-t", "--tx-depth"}, paramLabel = "DEPTH", defaultValue = "128",
                converter = PingpongCommand.CNumber.class, description = "size of the tx queue (default ${DEFAULT-VALUE})")
        int txDepth;

        @Override
        Perftest.Test test() {
            return Perftest.Test.WRITE_BW;
        }

        @Override
        int defaultSize() {
            return 65536;
        }

        @Override
        int defaultIters() {
            return 5000;
        }

        @Override
        int txDepth() {
            return txDepth;
        }
    }
}
