package org.roce4j.tools;

import java.net.InetAddress;
import java.net.UnknownHostException;

import picocli.CommandLine.Option;

/**
 * The options librdmacm's UD examples (udaddy.c, mckey.c) share, with their letters and defaults, and
 * roce4j's {@code -d}: {@code -b}, {@code -C}, {@code -S}, {@code -p}. Each command's own options sit
 * between them by their {@code order} (the help lists them as the C tools' usage does); {@code -c},
 * which the two describe differently, is each command's own.
 */
abstract class CmatestCommand extends PeerCommand {
    @Option(names = "-b", order = 3, paramLabel = "bind_address", description = "bind to this address")
    String bindAddress;

    @Option(names = "-C", order = 5, paramLabel = "message_count", defaultValue = "10",
            description = "messages (default ${DEFAULT-VALUE})")
    int messageCount;

    @Option(names = "-S", order = 6, paramLabel = "message_size", defaultValue = "100",
            description = "message size (default ${DEFAULT-VALUE})")
    int messageSize;

    @Option(names = "-p", order = 7, paramLabel = "port_space", converter = PingpongCommand.CNumber.class,
            defaultValue = "0x111", description = "port space: 0x111 for UDP (default), 0x2 for IPOIB")
    int portSpace;

    @Option(names = {"-d", "--device"}, order = 20, paramLabel = "DEV",
            description = "roce4j only: emu:ADDRESS makes an emulated RNIC speaking RoCEv2 over UDP on that address; "
                + "NAME checks that the address belongs to device NAME (without it, the device is the one that owns "
                + "the address, as librdmacm picks it)")
    String device;

    @Option(names = {"-h", "--help"}, order = 21, usageHelp = true, description = "show this help and exit")
    boolean help;

    /** {@code InetAddress.getByName}, or null for an option not given. */
    static InetAddress addressOrNull(String name) throws UnknownHostException {
        return name == null ? null : InetAddress.getByName(name);
    }

    /**
     * An address that does not resolve (the tools' get_addr / get_rdma_addr): the tool's starting line,
     * getaddrinfo's message as the tool prints it, and the run's end with EAI_NONAME (-2) as its status.
     */
    final int unknownHost(String startLine, String message) {
        var out = spec.commandLine().getOut();
        out.println(startLine);
        out.println(message);
        out.println("test complete");
        out.println("return status -2");
        out.flush();
        return -2 & 0xFF;
    }
}
