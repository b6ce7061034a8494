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
final class UdaddyCommand extends CmatestCommand implements Callable<Integer> {
    @Option(names = "-s", order = 2, paramLabel = "server_address",
            description = "connect to the server at this address (client)")
    String serverAddress;

    @Option(names = "-c", order = 4, paramLabel = "connections", defaultValue = "1",
            description = "connections (default ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "-P", order = 8, paramLabel = "port_space", description = "port space: udp or ipoib")
    String portSpaceName;

    @Option(names = "--port", order = 9, paramLabel = "PORT", defaultValue = "7174",
            description = "roce4j only: the port (udaddy always uses ${DEFAULT-VALUE}; 0 lets the server take a free one)")
    int port;

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
        InetAddress server;
        InetAddress bind;
        try {
            server = addressOrNull(serverAddress);
            bind = addressOrNull(bindAddress);
        } catch (UnknownHostException e) {
            // get_rdma_addr's failure: the run ends with getaddrinfo's EAI_NONAME (-2)
            return unknownHost(serverAddress != null ? "udaddy: starting client" : "udaddy: starting server",
                    "rdma_getaddrinfo error: Name or service not known");
        }
        Udaddy.Options options = new Udaddy.Options(server, bind, connections, messageCount, messageSize, space, port, device);
        return new Udaddy(options, spec.commandLine().getOut(), spec.commandLine().getErr(),
                environment.connectionManagers(), environment.listening()).run();
    }
}
