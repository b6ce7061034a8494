package org.roce4j.bench;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The far end of {@link CmConnectLatencyBenchmark}'s baseline: sends every datagram back to where it
 * came from, with a blocking receive (a thread wake-up per datagram, as the rdma_cm listener's own
 * threads wake up per event). {@code bench/run-cm-rxe} runs it in the rxe VM:
 * {@code java org.roce4j.bench.UdpEcho ADDRESS:PORT}; it prints one line when it listens and, when
 * stopped, how many datagrams it echoed.
 */
public final class UdpEcho implements AutoCloseable {
    private final DatagramSocket socket;
    private final AtomicLong echoed = new AtomicLong();

    /** Binds the echo's socket to {@code address}. */
    UdpEcho(InetSocketAddress address) throws SocketException {
        socket = new DatagramSocket(address);
    }

    /** {@return where the echo listens (the port chosen when 0 was asked for)} */
    InetSocketAddress address() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    /** {@return how many datagrams went back so far} */
    long echoed() {
        return echoed.get();
    }

    /** Echoes until the socket is closed. */
    void serve() {
        DatagramPacket packet = new DatagramPacket(new byte[2048], 2048);
        try {
            while (true) {
                packet.setLength(2048);
                socket.receive(packet);
                socket.send(packet); // the packet's address is the sender's: the datagram goes back
                echoed.incrementAndGet();
            }
        } catch (IOException closed) {
            // close() ends the loop; any other socket failure ends it too, and the sender times out
        }
    }

    @Override
    public void close() {
        socket.close();
    }

    /**
     * Runs the echo on {@code ADDRESS:PORT} until the process is stopped.
     *
     * @param args one argument, {@code ADDRESS:PORT}
     */
    public static void main(String[] args) throws SocketException {
        if (args.length != 1) {
            System.err.println("usage: UdpEcho ADDRESS:PORT");
            System.exit(2);
        }
        UdpEcho echo = new UdpEcho(Endpoints.parse("UdpEcho", args[0]));
        Runtime.getRuntime().addShutdownHook(new Thread(
                () -> System.out.println("udp echo: " + echo.echoed() + " datagrams echoed")));
        System.out.println("udp echo: listening on " + echo.address());
        echo.serve();
    }
}
