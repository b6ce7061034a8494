package org.roce4j.bench;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.roce4j.cm.CmEventType;

/**
 * rdma_cm connect latency over the UDP link against another host's connection manager — Linux
 * Soft-RoCE in a VM when {@code bench/run-cm-rxe} runs it — next to that host's plain UDP round trip
 * in the same run.
 *
 * <ul>
 *   <li>{@code connectToEstablished}: roce4j's emulated RNIC on this host's address
 *       ({@link org.roce4j.emulator.udp.UdpRnic}, its {@link org.roce4j.emulator.EmulatedCm}) calls
 *       {@code rdma_connect} on an id whose address and route are resolved and whose RC QP is made,
 *       and waits for ESTABLISHED: the REQ out, the listener's REP back (with whatever the listener
 *       does before it accepts), the RTU out. Resolving, making the QP, and after ESTABLISHED the
 *       disconnect (DREQ, DISCONNECTED on the DREP) and destroying the id are per-invocation setup
 *       and teardown, not measured. Anything but ESTABLISHED stops the benchmark with what came
 *       instead; a DREQ left unanswered is counted and the run goes on ({@link CmConnections}).
 *       The counts and the UDP link's counters are printed when the trial ends.</li>
 *   <li>{@code udpEchoRoundTrip}, the baseline: one 280-byte datagram (the UDP payload of a CM MAD:
 *       BTH, DETH, 256-byte MAD, ICRC) to a UDP echo on the same peer and back, blocking on both
 *       ends ({@link UdpEcho}).</li>
 * </ul>
 *
 * The peers are system properties: {@value #TARGET_PROPERTY} (the rdma_cm listener, required),
 * {@value #ECHO_PROPERTY} (the echo, required by the baseline) and {@value #LOCAL_PROPERTY} (this
 * host's address for the emulated RNIC; default: the one the routing table picks for the target).
 * Without them the benchmark stops at setup, naming the property.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CmConnectLatencyBenchmark {
    static final String TARGET_PROPERTY = "roce4j.bench.cm.target";
    static final String ECHO_PROPERTY = "roce4j.bench.cm.echo";
    static final String LOCAL_PROPERTY = "roce4j.bench.cm.local";
    /** BTH 12 + DETH 8 + MAD 256 + ICRC 4: what a CM MAD puts in its UDP datagram. */
    static final int CM_MAD_DATAGRAM = 280;

    /** One rdma_cm connection per invocation to the listener {@value #TARGET_PROPERTY} names. */
    @State(Scope.Thread)
    public static class Connector {
        CmConnections connections;

        @Setup(Level.Trial)
        public void open() throws IOException {
            InetSocketAddress target = Endpoints.required(TARGET_PROPERTY,
                    "the address and port of an rdma_cm listener (bench/run-cm-rxe starts rping -s -P in a Soft-RoCE VM)");
            String local = System.getProperty(LOCAL_PROPERTY);
            connections = CmConnections.open(target, local != null ? local
                    : Endpoints.sourceFor(target.getAddress()).getHostAddress());
        }

        @Setup(Level.Invocation)
        public void resolve() {
            connections.prepare();
        }

        @TearDown(Level.Invocation)
        public void disconnect() {
            connections.finish();
        }

        @TearDown(Level.Trial)
        public void close() {
            if (connections != null) {
                System.out.println(connections.tally());
                System.out.println(connections.linkCounters());
                connections.close();
            }
        }
    }

    /** A connected UDP socket to the echo {@value #ECHO_PROPERTY} names. */
    @State(Scope.Thread)
    public static class EchoPeer {
        static final int PATIENCE_MILLIS = 2_000;
        DatagramSocket socket;
        final byte[] request = new byte[CM_MAD_DATAGRAM];
        final byte[] reply = new byte[2048];
        final DatagramPacket out = new DatagramPacket(request, request.length);
        final DatagramPacket in = new DatagramPacket(reply, reply.length);
        long sent;

        @Setup(Level.Trial)
        public void open() throws IOException {
            open(Endpoints.required(ECHO_PROPERTY, "the address and port of a UDP echo on the listener's host"));
        }

        void open(InetSocketAddress echo) throws IOException {
            socket = new DatagramSocket();
            socket.connect(echo);
            socket.setSoTimeout(PATIENCE_MILLIS);
        }

        /** Sends the next numbered datagram and waits for it to come back whole. */
        long roundTrip() throws IOException {
            long sequence = ++sent;
            ByteBuffer.wrap(request).putLong(0, sequence);
            socket.send(out);
            in.setLength(reply.length);
            try {
                socket.receive(in);
            } catch (SocketTimeoutException e) {
                throw new IllegalStateException("datagram " + sequence + " to " + socket.getRemoteSocketAddress()
                        + ": no echo within " + PATIENCE_MILLIS + " ms");
            } catch (PortUnreachableException e) {
                throw new IllegalStateException("datagram " + sequence + " to " + socket.getRemoteSocketAddress()
                        + ": port unreachable, nobody listens there");
            }
            if (in.getLength() != CM_MAD_DATAGRAM || ByteBuffer.wrap(reply).getLong(0) != sequence) {
                throw new IllegalStateException("datagram " + sequence + ": the echo sent back " + in.getLength()
                        + " bytes numbered " + ByteBuffer.wrap(reply).getLong(0));
            }
            return sequence;
        }

        @TearDown(Level.Trial)
        public void close() {
            if (socket != null) {
                System.out.println("udp echo " + socket.getRemoteSocketAddress() + ": " + sent + " round trips");
                socket.close();
            }
        }
    }

    @Benchmark
    public CmEventType connectToEstablished(Connector connector) {
        return connector.connections.connect();
    }

    @Benchmark
    public long udpEchoRoundTrip(EchoPeer echo) throws IOException {
        return echo.roundTrip();
    }
}
