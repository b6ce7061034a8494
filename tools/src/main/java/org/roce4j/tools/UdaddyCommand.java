package org.roce4j.tools;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;

import org.roce4j.cm.PortSpace;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code roce4j udaddy}: librdmacm's udaddy (librdmacm/examples/udaddy.c) with its options, letters
 * and defaults: without {@code -s} a server, with {@code -s ADDRESS} a client; 1 connection, 10
 * messages of 100 bytes, port 7174, the UDP port space. roce4j adds {@code --port} (udaddy's port is
 * fixed) and {@code -d} (udaddy has none) to choose the device ({@link CmDevices}). The exit code is
 * udaddy's return status (255 for -1); 2 for a usage error (where udaddy prints its usage and exits 1).
 */
@Command(name = "udaddy", sortOptions = false,
        description = {"Like librdmacm's udaddy: resolves UD peers with the RDMA connection manager (UDP port space, "
            + "SIDR), then sends UD messages with immediate data both ways, so either side can be the C tool.", ""})
final class UdaddyCommand extends PeerCommand implements Callable<Integer> {
    @Option(names = "-s", paramLabel = "server_address", description = "connect to the server at this address (client)")
    String serverAddress;

    @Option(names = "-b", paramLabel = "bind_address", description = "bind to this address")
    String bindAddress;

    @Option(names = "-c", paramLabel = "connections", defaultValue = "1", description = "connections (default ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "-C", paramLabel = "message_count", defaultValue = "10", description = "messages (default ${DEFAULT-VALUE})")
    int messageCount;

    @Option(names = "-S", paramLabel = "message_size", defaultValue = "100", description = "message size (default ${DEFAULT-VALUE})")
    int messageSize;

    @Option(names = "-p", paramLabel = "port_space", converter = PingpongCommand.CNumber.class, defaultValue = "0x111",
            description = "port space: 0x111 for UDP (default), 0x2 for IPOIB")
    int portSpace;

    @Option(names = "-P", paramLabel = "port_space", description = "port space: udp or ipoib")
    String portSpaceName;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "7174",
            description = "roce4j only: the port (udaddy always uses ${DEFAULT-VALUE}; 0 lets the server take a free one)")
    int port;

    @Option(names = {"-d", "--device"}, paramLabel = "DEV",
            description = "roce4j only: emu:ADDRESS makes an emulated RNIC speaking RoCEv2 over UDP on that address; "
                + "NAME checks that the address belongs to device NAME (without it, the device is the one that owns "
                + "the address, as librdmacm picks it)")
    String device;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Override
    public Integer call() {
        PortSpace space = portSpaceName == null ? PortSpace.of(portSpace).orElse(null)
                : portSpaceName.regionMatches(true, 0, "ipoib", 0, 5) ? PortSpace.IPOIB : PortSpace.UDP;
        if (space == null || space.qpType() != org.roce4j.verbs.QpType.UD) {
            throw new ParameterException(spec.commandLine(), "port space " + Integer.toHexString(portSpace)
                    + " is not a UD one: 0x111 for UDP, 0x2 for IPOIB");
        }
        if (connections < 1 || messageCount < 0 || messageSize < 0 || port < 0 || port > 65535) {
            throw new ParameterException(spec.commandLine(), "-c must be 1 or more, -C and -S 0 or more, --port 0..65535");
        }
        var out = spec.commandLine().getOut();
        InetAddress server = null;
        InetAddress bind = null;
        try {
            if (serverAddress != null) {
                server = InetAddress.getByName(serverAddress);
            }
            if (bindAddress != null) {
                bind = InetAddress.getByName(bindAddress);
            }
        } catch (UnknownHostException e) {
            // get_rdma_addr's failure: the run ends with getaddrinfo's EAI_NONAME (-2)
            out.println(serverAddress != null ? "udaddy: starting client" : "udaddy: starting server");
            out.println("rdma_getaddrinfo error: Name or service not known");
            out.println("test complete");
            out.println("return status -2");
            out.flush();
            return -2 & 0xFF;
        }
        Udaddy.Options options = new Udaddy.Options(server, bind, connections, messageCount, messageSize, space, port, device);
        return new Udaddy(options, out, spec.commandLine().getErr(), environment.connectionManagers(),
                environment.listening()).run();
    }
}
