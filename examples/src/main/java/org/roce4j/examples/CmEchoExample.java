package org.roce4j.examples;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.roce4j.cm.ConnectionManager;
import org.roce4j.cm.ConnectionSettings;
import org.roce4j.cm.RdmaCm;
import org.roce4j.cm.RdmaConnection;
import org.roce4j.cm.RdmaServer;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Verbs;

/**
 * An echo service set up with the RDMA connection manager only — no out-of-band exchange of QPNs,
 * PSNs or GIDs: the server listens on an address, the client connects to it with a hello in the
 * REQ's private data, sends messages and gets each one back, then disconnects. Run:
 * {@code examples/run CmEchoExample [--server ADDRESS] [--messages N]} (the address defaults to the
 * first device's IPv4 address, so on one device the connection is a loopback through it).
 */
public final class CmEchoExample {
    private static final byte[] HELLO = "echo/1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BYE = "bye".getBytes(StandardCharsets.US_ASCII);

    private CmEchoExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--server ADDRESS] [--messages N]}
     * @throws UnknownHostException when the address cannot be parsed
     */
    public static void main(String[] args) throws UnknownHostException {
        InetAddress server = null;
        int messages = 10;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--server" -> server = InetAddress.getByName(args[i + 1]);
                case "--messages" -> messages = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (usage: [--server ADDRESS] [--messages N])");
            }
        }
        ConnectionManager cm = RdmaCm.connectionManager();
        run(cm, cm, server != null ? server : firstDeviceAddress(), messages, System.out);
    }

    /**
     * Serves one client and runs it: {@code messages} echoes, then the disconnect.
     *
     * @param serverCm the server's connection manager (its host)
     * @param clientCm the client's connection manager (the same one when both run on one host)
     * @param address  the server's address (the client's device is the one the CM routes through)
     * @param messages how many messages to echo
     * @param out      where to print
     * @return how many messages came back
     * @throws RdmaFailure if a message is lost or comes back wrong, or the server fails
     */
    public static int run(ConnectionManager serverCm, ConnectionManager clientCm, InetAddress address, int messages,
                          PrintStream out) {
        ConnectionSettings settings = ConnectionSettings.defaults().withTimeout(Polling.TIMEOUT);
        try (RdmaServer server = RdmaServer.listen(serverCm, new InetSocketAddress(address, 0), 4, settings)) {
            out.println("server listening on " + server.localAddress());
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> serveOne(server, out));
            int echoed = client(clientCm, server.localAddress(), settings, messages, out);
            int serverCount = served.join();
            if (serverCount != messages) {
                throw new RdmaFailure("the server echoed " + serverCount + " messages, the client sent " + messages);
            }
            return echoed;
        }
    }

    private static int serveOne(RdmaServer server, PrintStream out) {
        AtomicReference<EchoBuffers> buffers = new AtomicReference<>();
        try (RdmaConnection connection = server.accept(Polling.TIMEOUT, (qp, pd) -> buffers.set(new EchoBuffers(qp, pd)))
                .orElseThrow(() -> new RdmaFailure("no client connected within " + Polling.TIMEOUT.toSeconds() + " s"));
             EchoBuffers memory = buffers.get()) {
            out.println("server: client says " + text(connection.peerPrivateData()));
            int echoed = 0;
            for (byte[] message = memory.receive(); !Arrays.equals(message, BYE); message = memory.receive()) {
                memory.postReceive();
                memory.send(message);
                echoed++;
            }
            // The bye says the client had every echo, so the last echo's completion is not waited for:
            // its ACK may be lost, and once the client has disconnected its QP (in the error state)
            // answers no retransmission, so that SEND ends in RETRY_EXC_ERR though it was delivered.
            connection.awaitDisconnect(Polling.TIMEOUT);
            return echoed;
        }
    }

    private static int client(ConnectionManager cm, InetSocketAddress server, ConnectionSettings settings, int messages,
                              PrintStream out) {
        AtomicReference<EchoBuffers> buffers = new AtomicReference<>();
        try (RdmaConnection connection = RdmaConnection.connect(cm, server, settings.withPrivateData(HELLO),
                (qp, pd) -> buffers.set(new EchoBuffers(qp, pd)));
             EchoBuffers memory = buffers.get()) {
            out.println("client connected from " + connection.id().localAddress() + " on "
                    + connection.id().verbs().map(context -> context.device().name()).orElse("?"));
            for (int i = 0; i < messages; i++) {
                byte[] message = ("message " + i).getBytes(StandardCharsets.US_ASCII);
                memory.send(message);
                byte[] echo = memory.receive();
                if (!Arrays.equals(echo, message)) {
                    throw new RdmaFailure("sent '" + text(message) + "', got back '" + text(echo) + "'");
                }
                memory.postReceive();
                out.println("echo: " + text(echo));
            }
            memory.send(BYE);
            memory.awaitSends(); // rdma_disconnect moves the QP to ERR: the bye must be acknowledged first
            return messages;
        }
    }

    private static String text(byte[] bytes) {
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, 0, end, StandardCharsets.US_ASCII);
    }

    private static InetAddress firstDeviceAddress() {
        try (Context context = Verbs.provider().devices().getFirst().open()) {
            return context.queryGid(1, 1).toInetAddress();
        }
    }
}
