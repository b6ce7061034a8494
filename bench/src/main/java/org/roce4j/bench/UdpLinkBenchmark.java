package org.roce4j.bench;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.roce4j.emulator.ReceivePolling;
import org.roce4j.emulator.udp.UdpLinkConfig;
import org.roce4j.emulator.udp.UdpRnic;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WorkCompletion;

/**
 * Issue 5's UDP-link numbers, each next to the same machine's raw UDP in the same run:
 * <ul>
 *   <li>{@code rcWrite1MiB} (ops/s × 1 MiB = goodput) against {@code rawUdp4KiB} (ops/s × 4 KiB):
 *       RC RDMA WRITEs of 1 MiB at MTU 4096, four at a time, between two UDP devices on loopback (127.0.0.61 →
 *       127.0.0.62, every frame a real datagram through the kernel, its ICRC computed and verified),
 *       against plain 4096-byte datagrams between two sockets of the same machine, sent and read in
 *       windows of 32 by one thread (the kernel's loopback UDP path with nothing else in the way).
 *   <li>{@code rcWrite64BLatency} against {@code rawUdp64BPingPong} (sample time: the median is the
 *       p0.50 line): a signaled 64-byte RDMA WRITE posted and completed (request out, ACK back), against
 *       a 64-byte datagram sent and echoed back by a thread on the other socket, both sides polling
 *       their non-blocking sockets (the RNIC's threads and the CQ poll do not sleep either).
 * </ul>
 * Run: {@code bench/run 'UdpLinkBenchmark' -f 1 -wi 3 -w 2s -i 5 -r 2s}.
 */
public class UdpLinkBenchmark {
    static final int MIB = 1 << 20;
    static final int DATAGRAM = 4096;
    static final int WINDOW = 32;
    /** 1 MiB WRITEs posted before waiting, as ib_write_bw keeps its tx depth full. */
    static final int WRITES_IN_FLIGHT = 4;

    /** Two UDP devices with an RC QP between them; the link is not paced (loopback's own limit). */
    @State(Scope.Benchmark)
    public static class RcOverUdp {
        UdpRnic a;
        UdpRnic b;
        Arena arena;
        Context contextA;
        Context contextB;
        Pd pdA;
        Pd pdB;
        Cq cqA;
        Cq cqB;
        Mr mrA;
        Mr mrB;
        Qp qpA;
        Qp qpB;
        SendWr bigWrite;
        SendWr smallWrite;
        final WorkCompletion[] wcs = new WorkCompletion[16];
        /** The links' token bucket: 0 leaves them unpaced (loopback's own limit). */
        @Param("0")
        long packetsPerSecond;
        /** How the benchmark thread waits for completions: {@code poll} spins on ibv_poll_cq, {@code events} sleeps on the completion channel. */
        @Param("poll")
        String waitBy;
        CompChannel channelA;
        /** Whether the links send a duty cycle's frames to one peer as one UDP GSO send. */
        @Param("true")
        boolean segmentationOffload;
        /**
         * How the links read ({@code ReceivePolling}): {@code off} (Netty's epoll), {@code app} (A's reads by the
         * benchmark thread's CQ polls; B, which nobody polls, by Netty), {@code spin} (A's as {@code app}, B's by
         * its spinning receive thread: two spinning threads, as in the raw ping-pong).
         */
        @Param("off")
        String receivePolling;

        @Setup(Level.Trial)
        public void open() throws IOException {
            UdpLinkConfig link = UdpLinkConfig.DEFAULT.withActiveMtu(Mtu.MTU_4096).withPacketsPerSecond(packetsPerSecond).withBurst(64)
                    .withSegmentationOffload(segmentationOffload);
            ReceivePolling onA = receivePolling.equals("off") ? ReceivePolling.OFF : ReceivePolling.APPLICATION;
            ReceivePolling onB = switch (receivePolling) {
                case "off" -> ReceivePolling.OFF;
                case "app" -> ReceivePolling.APPLICATION;
                case "spin" -> ReceivePolling.SPIN;
                default -> throw new IllegalArgumentException("receivePolling: off, app or spin, not " + receivePolling);
            };
            a = UdpRnic.open("rxe-bench-a", "127.0.0.61", link.withReceivePolling(onA));
            b = UdpRnic.open("rxe-bench-b", "127.0.0.62", link.withReceivePolling(onB));
            arena = Arena.ofShared();
            contextA = a.device().open();
            contextB = b.device().open();
            pdA = contextA.allocPd();
            pdB = contextB.allocPd();
            channelA = contextA.createCompChannel();
            cqA = contextA.createCq(64, channelA, 0);
            cqB = contextB.createCq(64);
            MemorySegment memoryA = arena.allocate(4 * MIB, 4096);
            MemorySegment memoryB = arena.allocate(4 * MIB, 4096);
            mrA = pdA.regMr(memoryA, EmulatedRcPair.ALL_ACCESS);
            mrB = pdB.regMr(memoryB, EmulatedRcPair.ALL_ACCESS);
            qpA = pdA.createQp(QpInitAttr.of(QpType.RC, cqA, QpCap.of(16, 16)));
            qpB = pdB.createQp(QpInitAttr.of(QpType.RC, cqB, QpCap.of(16, 16)));
            EmulatedRcPair.connect(qpA, qpB, contextA, contextB, Mtu.MTU_4096);
            bigWrite = SendWr.rdmaWrite(1, mrA, 0, MIB, mrB.address(), mrB.rkey());
            smallWrite = SendWr.rdmaWrite(2, mrA, 0, 64, mrB.address(), mrB.rkey());
        }

        /** Polls until {@code n} completions arrived (a poll may return several), all successful. */
        void await(int n) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            int got = 0;
            while (got < n) {
                int polled = cqA.poll(wcs);
                if (polled == 0 && waitBy.equals("events")) {
                    cqA.reqNotify(false);
                    polled = cqA.poll(wcs); // one that came before the arming raises no event
                    if (polled == 0) {
                        channelA.getCqEvent(Duration.ofSeconds(1)).ifPresent(cq -> channelA.ackCqEvents(cq, 1));
                    }
                }
                for (int i = 0; i < polled; i++) {
                    if (!wcs[i].isSuccess()) {
                        throw new IllegalStateException("benchmark completion failed: " + wcs[i]);
                    }
                }
                got += polled;
                if (polled == 0 && System.nanoTime() > deadline) {
                    throw new IllegalStateException("no completion in 10 s: " + qpA.state() + " " + a.rnic().counters()
                            + " " + a.linkCounters() + " / peer " + b.rnic().counters() + " " + b.linkCounters());
                }
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            EmulatedRcPair.closeInOrder(qpA, qpB, mrA, mrB, cqA, cqB, channelA, pdA, pdB, contextA, contextB, a, b, arena);
        }
    }

    /** Two plain datagram sockets on loopback, and an echo thread for the ping-pong. */
    @State(Scope.Benchmark)
    public static class RawUdp {
        DatagramChannel sender;
        DatagramChannel receiver;
        DatagramChannel echo;
        Thread echoThread;
        final ByteBuffer big = ByteBuffer.allocateDirect(DATAGRAM);
        final ByteBuffer small = ByteBuffer.allocateDirect(64);
        final ByteBuffer in = ByteBuffer.allocateDirect(DATAGRAM);
        InetSocketAddress receiverAddress;
        InetSocketAddress echoAddress;

        @Setup(Level.Trial)
        public void open() throws IOException {
            InetAddress loopback = InetAddress.ofLiteral("127.0.0.1");
            sender = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0));
            receiver = DatagramChannel.open().setOption(StandardSocketOptions.SO_RCVBUF, 4 * MIB)
                    .bind(new InetSocketAddress(loopback, 0));
            echo = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0));
            // The ping-pong polls, as the RNIC's threads and the benchmark's CQ poll do: a blocking
            // receive would add a thread wake-up per hop (tens of µs on an idle VM), not UDP's cost.
            sender.configureBlocking(false);
            echo.configureBlocking(false);
            receiverAddress = (InetSocketAddress) receiver.getLocalAddress();
            echoAddress = (InetSocketAddress) echo.getLocalAddress();
            echoThread = Thread.ofPlatform().daemon().start(this::echo);
        }

        private void echo() {
            ByteBuffer buffer = ByteBuffer.allocateDirect(DATAGRAM);
            try {
                while (echo.isOpen()) {
                    buffer.clear();
                    var from = echo.receive(buffer);
                    if (from == null) {
                        Thread.onSpinWait();
                        continue;
                    }
                    buffer.flip();
                    echo.send(buffer, from);
                }
            } catch (IOException closed) {
                // the trial is over
            }
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            sender.close();
            receiver.close();
            echo.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(WRITES_IN_FLIGHT)
    public void rcWrite1MiB(RcOverUdp pair) {
        for (int i = 0; i < WRITES_IN_FLIGHT; i++) {
            pair.qpA.postSend(pair.bigWrite);
        }
        pair.await(WRITES_IN_FLIGHT);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(WINDOW)
    public void rawUdp4KiB(RawUdp udp) throws IOException {
        for (int i = 0; i < WINDOW; i++) {
            udp.big.clear();
            while (udp.sender.send(udp.big, udp.receiverAddress) == 0) {
                Thread.onSpinWait(); // non-blocking: the socket's send buffer is full
            }
        }
        for (int i = 0; i < WINDOW; i++) {
            udp.in.clear();
            udp.receiver.receive(udp.in);
        }
    }

    /** The batched raw baseline: 4 KiB datagrams sent with UDP GSO and read with UDP GRO ({@link GsoUdp}). */
    @State(Scope.Benchmark)
    public static class RawSegmentedUdp {
        GsoUdp udp;

        @Setup(Level.Trial)
        public void open() throws Throwable {
            udp = new GsoUdp(DATAGRAM);
        }

        @TearDown(Level.Trial)
        public void close() throws Throwable {
            udp.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(WINDOW)
    public void rawUdp4KiBSegmented(RawSegmentedUdp raw) throws Throwable {
        int perSend = GsoUdp.MAX_DATAGRAM_PAYLOAD / DATAGRAM;
        for (int left = WINDOW; left > 0; left -= perSend) {
            int bytes = Math.min(left, perSend) * DATAGRAM;
            while (!raw.udp.send(bytes)) {
                Thread.onSpinWait(); // the socket's send buffer is full
            }
        }
        for (long received = 0; received < (long) WINDOW * DATAGRAM; ) {
            received += raw.udp.receive();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void rcWrite64BLatency(RcOverUdp pair) {
        pair.qpA.postSend(pair.smallWrite);
        pair.await(1);
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void rawUdp64BPingPong(RawUdp udp) throws IOException {
        udp.small.clear();
        udp.sender.send(udp.small, udp.echoAddress);
        udp.in.clear();
        while (udp.sender.receive(udp.in) == null) {
            Thread.onSpinWait();
        }
    }
}
