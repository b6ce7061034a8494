package org.roce4j.tools;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import java.net.Inet4Address;
import java.net.InetAddress;

import org.roce4j.emulator.EmulatedCm;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.wire.MacAddress;

/**
 * Runs the rdma_cm tools (rping, udaddy) in-process, a server and a client each in its own thread
 * as two processes would run, the server on a port it picks (-p 0 / --port 0) and reports. The
 * devices are those of the emulator provider's default fabric ({@code rxe0} 10.0.0.1, {@code rxe1}
 * 10.0.0.2, one host), but on a threaded fabric: the default one is deterministic, where every
 * blocking wait of a thread advances virtual time, so while one tool works the other's waits would
 * run the CM's and the transport's timers out (a REQ retried into UNREACHABLE within a second).
 */
final class CmToolRuns {
    private CmToolRuns() {
    }

    /** What one run printed, and its exit code. */
    record Result(int exit, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }

        List<String> errLines() {
            return err.lines().toList();
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Both roles' results. */
    record Pair(Result server, Result client) {
    }

    private static final Fabric FABRIC = Fabric.threaded();
    private static final SoftRnic RXE0 = node("rxe0", "02:00:00:00:00:01", "10.0.0.1");
    private static final SoftRnic RXE1 = node("rxe1", "02:00:00:00:00:02", "10.0.0.2");
    private static final EmulatedCm HOST = EmulatedCm.of(RXE0, RXE1);

    private static SoftRnic node(String name, String mac, String ipv4) {
        try {
            return SoftRnic.attach(FABRIC, name, MacAddress.parse(mac), (Inet4Address) InetAddress.getByName(ipv4));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Daemon threads, one per running role, shared by the test classes. */
    private static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "cm-tool");
        thread.setDaemon(true);
        return thread;
    });

    /** The two devices' host's connection manager; no {@code emu:} devices. */
    static CmDevices emulatorCm() {
        return new CmDevices(HOST, spec -> {
            throw new UnsupportedOperationException("emu: devices are not made in this test");
        });
    }

    /** Runs one command line on the emulator's connection manager, telling {@code listening} the port a server listens on. */
    static Result run(CompletableFuture<Integer> listening, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        PeerEnvironment environment = new PeerEnvironment(DeviceSelector.of(List.of(RXE0.device(), RXE1.device())), listening::complete, emulatorCm());
        int exit = Roce4j.run(new PrintWriter(out), new PrintWriter(err), environment, args);
        return new Result(exit, out.toString().replace(System.lineSeparator(), "\n"),
                err.toString().replace(System.lineSeparator(), "\n"));
    }

    static Result run(String... args) {
        return run(new CompletableFuture<>(), args);
    }

    /**
     * Starts the server, waits until it listens (mckey's receiver: until it has joined), then runs the
     * client with {@code clientArgs} and the server's port after {@code portOption} (none when null);
     * returns both results.
     */
    static Pair pair(String[] serverArgs, String portOption, String... clientArgs) throws Exception {
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Future<Result> server = THREADS.submit(() -> run(port, serverArgs));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!port.isDone() && !server.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        if (!port.isDone()) {
            server.cancel(true);
            throw new AssertionError("the server did not listen: " + (server.isDone() ? server.get() : "still running"));
        }
        int listening = port.get();
        String[] withPort = portOption == null ? clientArgs : java.util.Arrays.copyOf(clientArgs, clientArgs.length + 2);
        if (portOption != null) {
            withPort[clientArgs.length] = portOption;
            withPort[clientArgs.length + 1] = Integer.toString(listening);
        }
        Future<Result> client = THREADS.submit(() -> run(withPort));
        Result clientResult = await(client);
        if (clientResult.exit() != 0) {
            // A server whose client failed may wait for it for ever, as the C tools do: give it a moment, then stop it.
            try {
                return new Pair(server.get(5, TimeUnit.SECONDS), clientResult);
            } catch (java.util.concurrent.TimeoutException e) {
                server.cancel(true);
                return new Pair(new Result(-1, "", "(still waiting for its client; stopped by the test)\n"), clientResult);
            }
        }
        Result serverResult = await(server);
        return new Pair(serverResult, clientResult);
    }

    /** Starts a command line in a thread of its own; the caller cancels or awaits it. */
    static Future<Result> start(CompletableFuture<Integer> listening, String... args) {
        return THREADS.submit(() -> run(listening, args));
    }

    static Result await(Future<Result> role) throws Exception {
        try {
            return role.get(120, TimeUnit.SECONDS);
        } finally {
            role.cancel(true); // interrupts a stuck wait
        }
    }
}
