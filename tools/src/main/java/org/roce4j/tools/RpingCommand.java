package org.roce4j.tools;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code roce4j rping}: rdma-core's rping (librdmacm/examples/rping.c) with its options, letters and
 * defaults (port 7174, size 64, count 0 = forever). rping's {@code -d} is "debug printfs"; given a
 * value ({@code -d emu:ADDRESS}, {@code -d NAME}) it picks the device instead, as {@code -d} does
 * for the other tools ({@link CmDevices}). Exit codes as rping's: 0, 255 for its -1 failures, 22
 * (EINVAL) for a bad -S or -C; 2 for other usage errors (rping prints its usage and exits 22).
 */
@Command(name = "rping", sortOptions = false,
        description = {"Like rdma-core's rping: an RDMA connection manager (rdma_cm) ping over RC. The client sends "
            + "its buffer's address and rkey, the server RDMA READs the ping data, the client sends a second buffer, "
            + "the server RDMA WRITEs the data back; each step is acknowledged with a SEND, as rping.c does, so "
            + "either side can be the C tool.", ""})
final class RpingCommand extends PeerCommand implements Callable<Integer> {
    /** rping's default port. */
    static final int DEFAULT_PORT = 7174;

    @Option(names = "-s", description = "server side. To bind to any address with IPv6 use -a ::0")
    boolean server;

    @Option(names = "-c", description = "client side")
    boolean client;

    @Option(names = "-a", paramLabel = "ADDR", description = "address")
    String address;

    @Option(names = "-I", paramLabel = "ADDR", description = "Source address to bind to for client.")
    String source;

    @Option(names = "-p", paramLabel = "PORT", defaultValue = "" + DEFAULT_PORT,
            description = "port (default ${DEFAULT-VALUE}; 0 lets the server take a free one)")
    int port;

    @Option(names = "-C", paramLabel = "COUNT", defaultValue = "0", description = "ping count times (0: forever)")
    int count;

    @Option(names = "-S", paramLabel = "SIZE", defaultValue = "64", description = "ping data size (default ${DEFAULT-VALUE})")
    int size;

    @Option(names = "-v", description = "display ping data to stdout")
    boolean[] verbose = new boolean[0];

    @Option(names = "-V", description = "validate ping data")
    boolean[] validate = new boolean[0];

    @Option(names = "-d", arity = "0..1", fallbackValue = "", paramLabel = "DEV",
            description = "debug printfs; with a value, the device: emu:ADDRESS makes an emulated RNIC speaking RoCEv2 "
                + "over UDP on that address, NAME checks that the address belongs to device NAME "
                + "(without it, the device is the one that owns the address, as librdmacm picks it)")
    List<String> debugOrDevice = new ArrayList<>();

    @Option(names = "-P", description = "persistent server mode allowing multiple connections")
    boolean persistent;

    @Option(names = "-q", description = "use self-created, self-modified QP")
    boolean selfCreateQp;

    /** TEST ONLY, hidden: the server spoils the first byte of every echo it writes, so that -V can be seen failing. */
    @Option(names = "--corrupt-write-for-test", hidden = true, description = "TEST ONLY: spoil the data the server writes back")
    boolean corruptWriteForTest;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Override
    public Integer call() {
        if (!server && !client) {
            throw new ParameterException(spec.commandLine(), "one of -s (server) or -c (client) is required");
        }
        if (server && client) {
            throw new ParameterException(spec.commandLine(), "-s and -c exclude each other");
        }
        var err = spec.commandLine().getErr();
        var out = spec.commandLine().getOut();
        if (size < RpingData.MIN_BUFSIZE || size > RpingData.MAX_BUFSIZE - 1) {
            err.printf("Invalid size %d (valid range is %d to %d)%n", size, RpingData.MIN_BUFSIZE, RpingData.MAX_BUFSIZE);
            return 22;
        }
        if (count < 0) {
            err.printf("Invalid count %d%n", count);
            return 22;
        }
        if (port < 0 || port > 65535) {
            throw new ParameterException(spec.commandLine(), "port " + port + " is not a port (0..65535)");
        }
        InetAddress addr;
        InetAddress src = null;
        try {
            // cb->sin starts as an AF_INET zero address: without -a, 0.0.0.0
            addr = address == null ? InetAddress.getByAddress(new byte[4]) : InetAddress.getByName(address);
            if (source != null) {
                src = InetAddress.getByName(source);
            }
        } catch (UnknownHostException e) {
            // get_addr: getaddrinfo's failure is printed on stdout, and rping returns its EAI_NONAME (-2)
            out.println("getaddrinfo failed (Name or service not known) - invalid hostname or IP address");
            out.flush();
            return -2 & 0xFF;
        }
        int debug = 0;
        String device = null;
        for (String value : debugOrDevice) {
            if (value.isEmpty()) {
                debug++;
            } else {
                device = value;
            }
        }
        Rping.Options options = new Rping.Options(server, addr, src, port, count, size, verbose.length, validate.length,
                debug, persistent, selfCreateQp, device, corruptWriteForTest);
        if (corruptWriteForTest) {
            err.println("TEST ONLY: --corrupt-write-for-test spoils the data this server writes back");
        }
        return new Rping(options, out, err, environment.connectionManagers(), environment.listening()).run();
    }
}
