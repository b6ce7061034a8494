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
final class McKeyCommand extends PeerCommand implements Callable<Integer> {
    @Option(names = "-m", paramLabel = "multicast_address", required = true, description = "the group to join")
    String groupAddress;

    @Option(names = "-s", description = "send to the group (without it: receive)")
    boolean sender;

    @Option(names = "-b", paramLabel = "bind_address", description = "bind to this address")
    String bindAddress;

    @Option(names = "-c", paramLabel = "connections", defaultValue = "1", description = "ids that join (default ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "-C", paramLabel = "message_count", defaultValue = "10", description = "messages (default ${DEFAULT-VALUE})")
    int messageCount;

    @Option(names = "-S", paramLabel = "message_size", defaultValue = "100", description = "message size (default ${DEFAULT-VALUE})")
    int messageSize;

    @Option(names = "-p", paramLabel = "port_space", converter = PingpongCommand.CNumber.class, defaultValue = "0x111",
            description = "port space: 0x111 for UDP (default), 0x2 for IPOIB")
    int portSpace;

    @Option(names = "-o", description = "join as a send-only full member")
    boolean sendOnly;

    @Option(names = "--settle", paramLabel = "MS", defaultValue = "3000",
            description = "roce4j only: the pause after joining, in milliseconds (mckey's is ${DEFAULT-VALUE})")
    long settleMillis;

    @Option(names = {"-d", "--device"}, paramLabel = "DEV",
            description = "roce4j only: emu:ADDRESS makes an emulated RNIC speaking RoCEv2 over UDP on that address; "
                + "NAME checks that the address belongs to device NAME (without it, the device is the one that owns "
                + "the address, as librdmacm picks it)")
    String device;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Override
    public Integer call() {
        PortSpace space = PortSpace.of(portSpace).orElse(null);
        if (space == null) {
            return 1; // rdma_create_id refuses the port space: alloc_nodes fails, exit(1)
        }
        if (connections < 1 || messageCount < 0 || messageSize < 0 || settleMillis < 0) {
            throw new ParameterException(spec.commandLine(), "-c must be 1 or more, -C, -S and --settle 0 or more");
        }
        var out = spec.commandLine().getOut();
        InetAddress group;
        InetAddress bind = null;
        try {
            group = InetAddress.getByName(groupAddress);
            if (bindAddress != null) {
                bind = InetAddress.getByName(bindAddress);
            }
        } catch (UnknownHostException e) {
            // get_addr's failure: getaddrinfo's message, and run() returns EAI_NONAME (-2)
            out.println(sender ? "mckey: starting client" : "mckey: starting server");
            out.println("getaddrinfo failed (Name or service not known) - invalid hostname or IP address");
            out.println("test complete");
            out.println("return status -2");
            out.flush();
            return -2 & 0xFF;
        }
        McKey.Options options = new McKey.Options(group, bind, sender, connections, messageCount, messageSize, space,
                sendOnly, Duration.ofMillis(settleMillis), device);
        return new McKey(options, out, spec.commandLine().getErr(), environment.connectionManagers(),
                environment.listening()).run();
    }
}
