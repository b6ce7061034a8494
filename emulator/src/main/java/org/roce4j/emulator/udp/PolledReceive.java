package org.roce4j.emulator.udp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.unix.Socket;
import org.roce4j.emulator.ReceivePolling;
import org.roce4j.emulator.fabric.Clock;

/**
 * The UDP link's unicast sockets read by polling instead of by Netty's {@code epoll_wait}, so that a
 * datagram costs no thread wake-up ({@link ReceivePolling}): as a DPDK or AF_XDP driver is polled
 * by the application's own loop.
 *
 * <p>Two kinds of reader, never two at once: an application thread polling one of the device's CQs
 * ({@link #poll}), and — with {@link ReceivePolling#SPIN} — the link's receive thread, which spins on
 * the sockets while no application thread polls. Both read holding {@link #reading}, so datagrams
 * reach the RNIC in the order the sockets hold them. While polled, the channels' Netty reads are off
 * ({@code autoRead} false, set on their event loop and waited for: every datagram Netty read before
 * has been handed over). When nobody has polled for a while the receive thread hands the sockets back
 * to Netty, and the link sleeps in {@code epoll_wait} as without polling.
 *
 * <p>Reads are non-blocking {@code recvfrom(2)} on the channel's socket, one datagram each: without
 * UDP GRO, which a plain read could not cut into frames (the link does not set it when polled).
 */
final class PolledReceive implements AutoCloseable {
    /**
     * An application poll holds the sockets this long after it: a busy poller polls far more often, and
     * one that stops gives them back to Netty's loop that much later. The receive thread checks every
     * this long meanwhile.
     */
    static final long APPLICATION_HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** A spinning receive thread sleeps (Netty's epoll reads again) after this long without a datagram. */
    static final long SPIN_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Datagrams one poll takes at most: an application poll returns to its CQ in bounded time. */
    static final int DATAGRAMS_PER_POLL = 64;

    private record Source(Channel channel, Socket socket, ReceiveSide.Receiver handler) {
    }

    private final ReceivePolling mode;
    private final Clock clock;
    private final EventLoop eventLoop;
    private final ReentrantLock reading = new ReentrantLock();
    /** The sockets read; replaced whole when one is added. Changed holding {@link #reading}. */
    private volatile Source[] sources = new Source[0];
    /** Whether Netty's reads are off and the sockets are read here. Changed holding {@link #reading}. */
    private volatile boolean polled;
    private volatile long lastApplicationPoll = Long.MIN_VALUE / 2;
    /** The last datagram read, by a poll or by Netty: a spinning receive thread goes on until this is old. */
    private volatile long lastDatagram = Long.MIN_VALUE / 2;
    private volatile boolean closed;
    /** Read into by whoever holds {@link #reading}. */
    private final ByteBuffer in = ByteBuffer.allocateDirect(UdpLink.MAX_DATAGRAM + 1);
    private final Thread receiveThread;
    private final AtomicLong datagramsPolled = new AtomicLong();
    private final AtomicLong readFailures;

    /** @param readFailures the link's send failures: ICMP errors surface on a socket's read */
    PolledReceive(ReceivePolling mode, Clock clock, EventLoop eventLoop, AtomicLong readFailures) {
        if (mode == ReceivePolling.OFF) {
            throw new IllegalArgumentException("receive polling is off");
        }
        this.mode = mode;
        this.clock = clock;
        this.eventLoop = eventLoop;
        this.readFailures = readFailures;
        this.receiveThread = Thread.ofPlatform().daemon().name("roce4j-udp-receive-poll").unstarted(this::run);
    }

    void start() {
        receiveThread.start();
    }

    /** Reads {@code channel} (an epoll channel, whose Netty handler is {@code handler}) from now on. */
    void add(Channel channel, ReceiveSide.Receiver handler) {
        handler.whenReadByEventLoop(this::readByEventLoop);
        reading.lock();
        try {
            if (closed) {
                return;
            }
            Source[] more = Arrays.copyOf(sources, sources.length + 1);
            more[more.length - 1] = new Source(channel, (Socket) ((EpollDatagramChannel) channel).fd(), handler);
            sources = more;
            if (polled) {
                setNettyReads(false);
            }
        } finally {
            reading.unlock();
        }
    }

    /**
     * From an application thread polling a CQ of the device, holding no fabric lock: reads what the sockets
     * hold, unless another thread is reading them.
     *
     * @return the datagrams handed to the RNIC
     */
    int poll() {
        long now = clock.nanoTime();
        lastApplicationPoll = now;
        if (!reading.tryLock()) {
            return 0;
        }
        try {
            if (closed) {
                return 0;
            }
            if (!polled) {
                takeFromNetty();
                LockSupport.unpark(receiveThread); // it watches for the end of the application's polling
            }
            return drain(now);
        } finally {
            reading.unlock();
        }
    }

    /** Datagrams read here rather than by Netty's loop. */
    long datagramsPolled() {
        return datagramsPolled.get();
    }

    private void readByEventLoop() {
        lastDatagram = clock.nanoTime();
        if (mode == ReceivePolling.SPIN) {
            LockSupport.unpark(receiveThread); // traffic again: spin
        }
    }

    private void run() {
        while (!closed) {
            long now = clock.nanoTime();
            if (now - lastApplicationPoll < APPLICATION_HOLD_NANOS) {
                LockSupport.parkNanos(this, APPLICATION_HOLD_NANOS); // an application thread reads
                continue;
            }
            if (mode == ReceivePolling.SPIN && now - lastDatagram < SPIN_IDLE_NANOS) {
                spinOnce(now);
                continue;
            }
            reading.lock();
            try {
                if (polled && !closed) {
                    giveToNetty();
                }
            } finally {
                reading.unlock();
            }
            // Netty reads now; an application poll or (SPIN) a datagram Netty read wakes this thread.
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    private void spinOnce(long now) {
        if (!reading.tryLock()) {
            Thread.onSpinWait();
            return;
        }
        try {
            if (closed) {
                return;
            }
            if (!polled) {
                takeFromNetty();
            }
            if (drain(now) == 0) {
                Thread.onSpinWait();
            }
        } finally {
            reading.unlock();
        }
    }

    /** Holding {@link #reading}, polled. */
    private int drain(long now) {
        int read = 0;
        for (Source source : sources) {
            try {
                while (read < DATAGRAMS_PER_POLL && source.handler().readFrom(source.socket(), in)) {
                    read++;
                }
            } catch (IOException e) {
                readFailures.incrementAndGet(); // ICMP errors (port unreachable) surface on a read
            }
        }
        if (read > 0) {
            lastDatagram = now;
            datagramsPolled.addAndGet(read);
        }
        return read;
    }

    /** Holding {@link #reading}: Netty stops reading; what it read before has been handed over when this returns. */
    private void takeFromNetty() {
        setNettyReads(false);
        polled = true;
    }

    /** Holding {@link #reading}: no poll reads after this; Netty's loop reads what the sockets hold. */
    private void giveToNetty() {
        polled = false;
        setNettyReads(true);
    }

    private void setNettyReads(boolean on) {
        Source[] all = sources;
        Runnable set = () -> {
            for (Source source : all) {
                source.channel().config().setAutoRead(on);
            }
        };
        if (eventLoop.inEventLoop()) {
            set.run();
        } else {
            // Waited for: when turning them off, the loop may be handing over a datagram it read before. (From
            // the loop itself this would wait for ever: hence the branch above, though no caller runs there.)
            eventLoop.submit(set).awaitUninterruptibly();
        }
    }

    /** Stops the receive thread; call before the channels close (their descriptors may be reused after). */
    @Override
    public void close() {
        reading.lock();
        try {
            closed = true;
        } finally {
            reading.unlock();
        }
        LockSupport.unpark(receiveThread);
        if (receiveThread.isAlive() && Thread.currentThread() != receiveThread) {
            try {
                receiveThread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
