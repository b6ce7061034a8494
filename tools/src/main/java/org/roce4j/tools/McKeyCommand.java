package org.roce4j.tools;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.Callable;

import org.roce4j.cm.PortSpace;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code roce4j mckey}: librdmacm's mckey (librdmacm/examples/mckey.c) with its options, letters and
 * defaults: without {@code -s} a receiver ("server"), with {@code -s} a sender; 1 node, 10 messages
 * of 100 bytes, the UDP port space, a full-member join ({@code -o}: send-only). roce4j adds
 * {@code --settle} (mckey always pauses 3 s after joining) and {@code -d} (mckey has none). mckey's
 * {@code -M} (an AF_IB group) and {@code -l} (a QP that does not loop its own multicast back) are
 * not offered. The exit code is mckey's return status (255 for -1); 2 for a usage error.
 */
@Command(name = "mckey", sortOptions = false,
        description = {"Like librdmacm's mckey: joins a multicast group with the RDMA connection manager "
            + "(rdma_join_multicast) and sends UD messages to it (-s) or receives them, so either side can be the C tool.", ""})
final class McKeyCommand extends CmatestCommand implements Callable<Integer> {
    @Option(names = "-m", order = 1, paramLabel = "multicast_address", required = true, description = "the group to join")
    String groupAddress;

    @Option(names = "-s", order = 2, description = "send to the group (without it: receive)")
    boolean sender;

    @Option(names = "-c", order = 4, paramLabel = "connections", defaultValue = "1",
            description = "ids that join (default ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "-o", order = 8, description = "join as a send-only full member")
    boolean sendOnly;

    @Option(names = "--settle", order = 9, paramLabel = "MS", defaultValue = "3000",
            description = "roce4j only: the pause after joining, in milliseconds (mckey's is ${DEFAULT-VALUE})")
    long settleMillis;

    @Override
    public Integer call() {
        PortSpace space = PortSpace.of(portSpace).orElse(null);
        if (space == null) {
            return 1; // rdma_create_id refuses the port space: alloc_nodes fails, exit(1)
        }
        if (connections < 1 || messageCount < 0 || messageSize < 0 || settleMillis < 0) {
            throw new ParameterException(spec.commandLine(), "-c must be 1 or more, -C, -S and --settle 0 or more");
        }
        InetAddress group;
        InetAddress bind;
        try {
            group = InetAddress.getByName(groupAddress);
            bind = addressOrNull(bindAddress);
        } catch (UnknownHostException e) {
            // get_addr's failure: getaddrinfo's message, and run() returns EAI_NONAME (-2)
            return unknownHost(sender ? "mckey: starting client" : "mckey: starting server",
                    "getaddrinfo failed (Name or service not known) - invalid hostname or IP address");
        }
        McKey.Options options = new McKey.Options(group, bind, sender, connections, messageCount, messageSize, space,
                sendOnly, Duration.ofMillis(settleMillis), device);
        return new McKey(options, spec.commandLine().getOut(), spec.commandLine().getErr(),
                environment.connectionManagers(), environment.listening()).run();
    }
}
