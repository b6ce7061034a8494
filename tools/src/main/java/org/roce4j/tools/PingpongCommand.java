package org.roce4j.tools;

import java.security.SecureRandom;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.roce4j.verbs.Mtu;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * The options every rdma-core pingpong example has, with their names, letters and defaults; one
 * subclass per example. Numbers are read as {@code strtoul(optarg, NULL, 0)} reads them (0x hex,
 * leading-0 octal). Exit code 0 on success, 1 when the run fails (the C tools' lines on stderr),
 * 2 for a usage error (where the C tools print their usage and exit 1).
 */
abstract class PingpongCommand extends PeerCommand implements Callable<Integer> {
    /** strtol(optarg, NULL, 0). */
    static final class CNumber implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            long number = Long.decode(value.strip());
            if (number < Integer.MIN_VALUE || number > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("out of range: " + value);
            }
            return (int) number;
        }
    }

    @Parameters(index = "0", arity = "0..1", paramLabel = "HOST",
            description = "connect to the server at HOST; without it, start a server and wait for a connection")
    String host;

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", defaultValue = "18515", converter = CNumber.class,
            description = "listen on/connect to port PORT (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV",
            description = "use IB device DEV (default first device found); emu:ADDRESS or emu:IFNAME "
                + "makes an emulated RNIC speaking RoCEv2 over UDP there")
    String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", defaultValue = "1", converter = CNumber.class,
            description = "use port PORT of IB device (default ${DEFAULT-VALUE})")
    int ibPort;

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", converter = CNumber.class,
            description = "size of message to exchange (default 4096; ud: 1024)")
    Integer size;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "DEP", defaultValue = "500", converter = CNumber.class,
            description = "number of receives to post at a time (default ${DEFAULT-VALUE})")
    int rxDepth;

    @Option(names = {"-n", "--iters"}, paramLabel = "ITERS", defaultValue = "1000", converter = CNumber.class,
            description = "number of exchanges (default ${DEFAULT-VALUE})")
    int iters;

    @Option(names = {"-l", "--sl"}, paramLabel = "SL", defaultValue = "0", converter = CNumber.class,
            description = "service level value")
    int sl;

    @Option(names = {"-e", "--events"}, description = "sleep on CQ events (default poll)")
    boolean events;

    @Option(names = {"-g", "--gid-idx"}, paramLabel = "GID_INDEX", defaultValue = "-1", converter = CNumber.class,
            description = "local port gid index (RoCE needs one on both sides, e.g. -g 1)")
    int gidIndex;

    @Option(names = {"-c", "--chk"}, description = "validate received buffer")
    boolean check;

    /**
     * TEST ONLY, hidden from the help: spoils the first byte of every message this side sends, so
     * that a test can show the peer's {@code -c} check (and an interop case's scan of the C tool's
     * output) catching it. Never meant for a real run.
     */
    @Option(names = "--corrupt-payload-for-test", hidden = true,
            description = "TEST ONLY: spoil the first byte of every message sent")
    boolean corruptPayloadForTest;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    /** The service this command speaks, named by the command: {@code rc-pingpong} speaks RC. */
    final Pingpong.Service service() {
        return Pingpong.Service.valueOf(spec.name().replace("-pingpong", "").toUpperCase(Locale.ROOT));
    }

    /** -m, for the tools that have it. */
    Mtu mtu() {
        return Mtu.MTU_1024;
    }

    /** -q, for srq. */
    int numQp() {
        return 1;
    }

    int defaultSize() {
        return 4096;
    }

    @Override
    public Integer call() {
        if (port < 0 || port > 65535) {
            throw new ParameterException(spec.commandLine(), "port " + port + " is not a TCP port (0..65535)");
        }
        if (ibPort < 1) {
            throw new ParameterException(spec.commandLine(), "--ib-port must be 1 or more");
        }
        int messageSize = size == null ? defaultSize() : size;
        if (messageSize < 0 || (service() == Pingpong.Service.SRQ && messageSize < 1)) {
            throw new ParameterException(spec.commandLine(), "bad --size " + messageSize);
        }
        if (numQp() < 1) {
            throw new ParameterException(spec.commandLine(), "--num-qp must be 1 or more");
        }
        if (rxDepth < 1 || iters < 0) {
            throw new ParameterException(spec.commandLine(), "--rx-depth must be 1 or more and --iters 0 or more");
        }
        if (corruptPayloadForTest) {
            spec.commandLine().getErr().println("TEST ONLY: --corrupt-payload-for-test spoils every message this side sends");
        }
        Pingpong.Options options = new Pingpong.Options(service(), host, port, ibDev, ibPort, messageSize, mtu(),
                rxDepth, iters, sl, events, gidIndex, check, numQp(), corruptPayloadForTest);
        return new Pingpong(options, spec.commandLine().getOut(), spec.commandLine().getErr(), environment.devices(),
                environment.listening(), new SecureRandom()).run();
    }

    /** pp_mtu_to_enum: 256, 512, 1024, 2048 or 4096. */
    static Mtu parseMtu(CommandSpec spec, int bytes) {
        try {
            return Mtu.ofBytes(bytes);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--mtu " + bytes + ": " + e.getMessage());
        }
    }

    /** The pingpongs with a path MTU: all but UD (a UD datagram is one packet, no path MTU). */
    abstract static class WithPathMtu extends PingpongCommand {
        @Option(names = {"-m", "--mtu"}, paramLabel = "SIZE", defaultValue = "1024", converter = CNumber.class,
                description = "path MTU (default ${DEFAULT-VALUE})")
        int mtuBytes;

        @Override
        Mtu mtu() {
            return parseMtu(spec, mtuBytes);
        }
    }

    @Command(name = "rc-pingpong", sortOptions = false,
            description = {"Like ibv_rc_pingpong: ping-pong SENDs over a Reliable Connection, speaking the rdma-core "
                + "example's TCP handshake (port 18515), so either side can be the C tool.", ""})
    static final class Rc extends WithPathMtu {
    }

    @Command(name = "uc-pingpong", sortOptions = false,
            description = {"Like ibv_uc_pingpong: ping-pong SENDs over an Unreliable Connection, speaking the "
                + "rdma-core example's TCP handshake (port 18515), so either side can be the C tool.", ""})
    static final class Uc extends WithPathMtu {
    }

    @Command(name = "ud-pingpong", sortOptions = false,
            description = {"Like ibv_ud_pingpong: ping-pong SENDs over Unreliable Datagram (Q_Key 0x11111111, one "
                + "packet each, so SIZE must fit the port's active MTU), speaking the rdma-core example's TCP "
                + "handshake (port 18515), so either side can be the C tool.", ""})
    static final class Ud extends PingpongCommand {
        @Override
        int defaultSize() {
            return 1024; // rdma-core's ud_pingpong.c: size = 1024 (its help text still says 2048)
        }
    }

    @Command(name = "srq-pingpong", sortOptions = false,
            description = {"Like ibv_srq_pingpong: ping-pong SENDs over NUM RC queue pairs sharing one receive "
                + "queue, speaking the rdma-core example's TCP handshake (port 18515; always 256 address "
                + "records each way), so either side can be the C tool.", ""})
    static final class Srq extends WithPathMtu {
        @Option(names = {"-q", "--num-qp"}, paramLabel = "NUM", defaultValue = "16", converter = CNumber.class,
                description = "number of QPs to use (default ${DEFAULT-VALUE})")
        int numQp;

        @Override
        int numQp() {
            return numQp;
        }
    }
}
