package org.roce4j.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

import org.roce4j.verbs.Context;

/**
 * A request/response service over UD: clients send datagrams to a server's UD QP, the server
 * answers each to the address in its GRH. Run: {@code examples/run UdServiceExample [--server DEV] [--client DEV]}.
 */
public final class UdServiceExample {
    private UdServiceExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--server DEVICE] [--client DEVICE]}
     */
    public static void main(String[] args) {
        ExampleDevices devices = ExampleDevices.from(args);
        try (Context server = devices.server().open(); Context client = devices.client().open()) {
            run(server, client, 20, Duration.ofMillis(200), System.out);
        }
    }

    /**
     * Makes {@code requests} calls and checks every answer.
     *
     * @param serverContext the server's device
     * @param clientContext the client's device
     * @param requests      how many calls
     * @param retryAfter    how long the client waits before repeating a request
     * @param out           where to print
     * @return the request datagrams the client sent (more than {@code requests} when some were lost)
     * @throws RdmaFailure if an answer is wrong or never comes
     */
    public static long run(Context serverContext, Context clientContext, int requests, Duration retryAfter, PrintStream out) {
        try (Endpoint serverSide = new Endpoint(serverContext, 64); Endpoint clientSide = new Endpoint(clientContext, 64)) {
            UdServer server = new UdServer(serverSide, 16, 256);
            UdClient client = new UdClient(clientSide, serverSide.gid(), server.qpNum(), 256, retryAfter, 50);
            for (int i = 0; i < requests; i++) {
                String request = "hello rdma " + i;
                String answer = client.call(request, server::serve);
                if (!answer.equals(request.toUpperCase(Locale.ROOT))) {
                    throw new RdmaFailure("'" + request + "' was answered with '" + answer + "'");
                }
                if (i % 5 == 0) {
                    out.println(request + " -> " + answer);
                }
            }
            out.println(requests + " calls, " + client.sends() + " request datagrams, " + server.answered() + " answers");
            return client.sends();
        }
    }
}
