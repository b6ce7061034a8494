package org.roce4j.examples;

import java.io.PrintStream;
import java.util.EnumSet;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;

/**
 * An atomic counter: two clients on one node take tickets from a counter on another with
 * FETCH_AND_ADD, and one resets it with CMP_AND_SWP. Run:
 * {@code examples/run AtomicCounterExample [--server DEV] [--client DEV]}.
 */
public final class AtomicCounterExample {
    private AtomicCounterExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--server DEVICE] [--client DEVICE]}
     */
    public static void main(String[] args) {
        ExampleDevices devices = ExampleDevices.from(args);
        try (Context server = devices.server().open(); Context client = devices.client().open()) {
            run(server, client, 50, System.out);
        }
    }

    /**
     * Two clients take {@code rounds} tickets each, alternating; every ticket must be unique and the
     * counter must end at {@code 2 * rounds}; then a compare-and-swap with a stale value must fail
     * and one with the right value must reset the counter.
     *
     * @param ownerContext  the counter owner's device
     * @param clientContext the clients' device
     * @param rounds        tickets per client
     * @param out           where to print
     * @return the counter's final value before the reset
     * @throws RdmaFailure if a ticket repeats or the counter is wrong
     */
    public static long run(Context ownerContext, Context clientContext, int rounds, PrintStream out) {
        try (Endpoint ownerSide = new Endpoint(ownerContext, 16); Endpoint clientSide = new Endpoint(clientContext, 16)) {
            AtomicCounter counter = new AtomicCounter(ownerSide);
            CounterClient[] clients = new CounterClient[2];
            for (int c = 0; c < clients.length; c++) {
                Qp ownerQp = counter.acceptQp();
                Qp clientQp = RcConnection.create(clientSide, QpCap.of(4, 4), EnumSet.noneOf(AccessFlag.class));
                RcConnection.Address ownerAddress = new RcConnection.Address(ownerQp.qpNum(), 0x5000 + c, ownerSide.gid());
                RcConnection.Address clientAddress = new RcConnection.Address(clientQp.qpNum(), 0x6000 + c, clientSide.gid());
                RcConnection.connect(ownerQp, ownerAddress.psn(), clientAddress, Mtu.MTU_1024, 1);
                RcConnection.connect(clientQp, clientAddress.psn(), ownerAddress, Mtu.MTU_1024, 1);
                clients[c] = new CounterClient(clientSide, clientQp, counter.address(), counter.rkey());
            }
            boolean[] seen = new boolean[2 * rounds];
            for (int i = 0; i < rounds; i++) {
                for (CounterClient client : clients) {
                    long ticket = client.fetchAndAdd(1);
                    if (ticket < 0 || ticket >= seen.length || seen[(int) ticket]) {
                        throw new RdmaFailure("ticket " + ticket + " handed out twice or out of range");
                    }
                    seen[(int) ticket] = true;
                }
            }
            long total = counter.value();
            if (total != 2L * rounds) {
                throw new RdmaFailure("the counter is " + total + " after " + 2 * rounds + " increments");
            }
            out.println(2 * rounds + " unique tickets, counter = " + total);
            long stale = clients[1].compareAndSwap(total - 1, 0);
            if (stale != total || counter.value() != total) {
                throw new RdmaFailure("a compare-and-swap with a stale value changed the counter");
            }
            long swapped = clients[0].compareAndSwap(total, 0);
            if (swapped != total || counter.value() != 0) {
                throw new RdmaFailure("the reset by compare-and-swap did not happen");
            }
            out.println("CMP_AND_SWP(" + (total - 1) + " -> 0) failed as it should; CMP_AND_SWP(" + total + " -> 0) reset it");
            return total;
        }
    }
}
