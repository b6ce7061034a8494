package org.roce4j.examples;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;

/**
 * A key-value get over RDMA READ: a server fills a table in registered memory, a client reads
 * values out of it without the server's CPU. Run: {@code examples/run KvGetExample [--server DEV] [--client DEV]}.
 */
public final class KvGetExample {
    private KvGetExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--server DEVICE] [--client DEVICE]}
     */
    public static void main(String[] args) {
        ExampleDevices devices = ExampleDevices.from(args);
        try (Context server = devices.server().open(); Context client = devices.client().open()) {
            run(server, client, System.out);
        }
    }

    /**
     * Stores ten keys, gets each back and one that is missing, printing what happens.
     *
     * @param serverContext the server's device
     * @param clientContext the client's device
     * @param out           where to print
     * @return how many RDMA READs the gets took
     * @throws RdmaFailure if a READ fails or a value comes back wrong
     */
    public static long run(Context serverContext, Context clientContext, PrintStream out) {
        try (Endpoint serverSide = new Endpoint(serverContext, 16); Endpoint clientSide = new Endpoint(clientContext, 16)) {
            KvServer server = new KvServer(serverSide, 16, 16, 48);
            for (int i = 0; i < 10; i++) {
                server.put("key-" + i, ("value of key " + i).getBytes(StandardCharsets.UTF_8));
            }
            Qp serverQp = server.acceptQp();
            Qp clientQp = RcConnection.create(clientSide, QpCap.of(4, 4), EnumSet.noneOf(AccessFlag.class));
            // The out-of-band exchange: each side's QPN, first PSN and GID.
            RcConnection.Address serverAddress = new RcConnection.Address(serverQp.qpNum(), 0x1000, serverSide.gid());
            RcConnection.Address clientAddress = new RcConnection.Address(clientQp.qpNum(), 0x2000, clientSide.gid());
            RcConnection.connect(serverQp, serverAddress.psn(), clientAddress, Mtu.MTU_1024, 1);
            RcConnection.connect(clientQp, clientAddress.psn(), serverAddress, Mtu.MTU_1024, 1);

            KvClient client = new KvClient(clientSide, clientQp, server.table());
            for (int i = 0; i < 10; i++) {
                String value = client.get("key-" + i).map(v -> new String(v, StandardCharsets.UTF_8))
                        .orElseThrow(() -> new RdmaFailure("a stored key was not found"));
                if (!value.equals("value of key " + i)) {
                    throw new RdmaFailure("key-" + i + " read back as '" + value + "'");
                }
                out.println("get key-" + i + " = " + value);
            }
            if (client.get("no-such-key").isPresent()) {
                throw new RdmaFailure("a missing key was found");
            }
            out.println("get no-such-key = (none)");
            out.println(client.reads() + " RDMA READs, no server CPU");
            return client.reads();
        }
    }
}
