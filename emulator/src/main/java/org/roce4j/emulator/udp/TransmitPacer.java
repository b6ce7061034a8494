package org.roce4j.emulator.udp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.SegmentedDatagramPacket;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.Socket;
import org.roce4j.emulator.fabric.Clock;

/**
 * The UDP link's transmit side: frames leave at the rate a token bucket allows. A frame is sent
 * at once from the calling thread when nothing is ahead of it (see {@link #sendNow}); otherwise
 * its UDP payload is copied into a pooled buffer and queued (bounded: a full queue drops and
 * counts; RC retransmission recovers), and a pacer thread takes frames as the bucket allows and
 * writes them in batches on the channel's event loop.
 */
final class TransmitPacer {
    private static final int BATCH = 64;

    /** Whether {@link #sendNow} may call sendto(2) on the channel's socket itself (epoll channels only). */
    private final boolean directPath;
    private final ArrayBlockingQueue<Outgoing> queue;
    private final Thread pacer;
    /** Shared by the pacer and the direct path of {@link #send}; guarded by itself. */
    private final TokenBucket bucket;
    /** Frames queued or handed to an event loop and not yet written: the direct path waits for 0 (order). */
    private final AtomicInteger pending = new AtomicInteger();
    /** Frames in the pacer's queue or hands, not yet handed to an event loop: a GSO send may pass only when 0. */
    private final AtomicInteger paced = new AtomicInteger();
    /** Run once when {@link #pending} is down to {@link #drainedTo}: see {@link #whenQueuedAtMost}. */
    private final AtomicReference<Runnable> onDrained = new AtomicReference<>();
    private volatile int drainedTo;
    /** The direct path's copy of a UDP payload. Under the fabric lock. */
    private final ByteBuffer direct = ByteBuffer.allocateDirect(UdpLink.MAX_DATAGRAM);
    private volatile boolean closed;

    private final AtomicLong framesSent = new AtomicLong();
    private final AtomicLong transmitQueueDrops = new AtomicLong();
    private final AtomicLong segmentedSends = new AtomicLong();
    private volatile boolean segmentationRefused;
    /** The link's, shared with its receive side (ICMP errors surface there). */
    private final AtomicLong sendFailures;

    /** @param frames the datagrams {@code packet} becomes: more than one for a UDP GSO send */
    private record Outgoing(Channel channel, DatagramPacket packet, int frames) {
    }

    TransmitPacer(UdpLinkConfig config, Clock clock, boolean directPath, AtomicLong sendFailures) {
        this.directPath = directPath;
        this.sendFailures = sendFailures;
        this.queue = new ArrayBlockingQueue<>(config.transmitQueueFrames());
        this.bucket = new TokenBucket(config.packetsPerSecond(), config.burst(), clock);
        this.pacer = Thread.ofPlatform().daemon().name("roce4j-udp-pacer").unstarted(this::pace);
    }

    void start() {
        pacer.start();
    }

    /** Sends {@code n} bytes of {@code frame} from {@code payload} (the UDP payload) on {@code channel} to {@code to}. */
    void send(Channel channel, byte[] frame, int payload, int n, InetSocketAddress to) {
        if (directPath && pending.get() == 0 && sendNow(channel, frame, payload, n, to)) {
            return;
        }
        ByteBuf buf = channel.alloc().directBuffer(n);
        buf.writeBytes(frame, payload, n);
        enqueue(new Outgoing(channel, new DatagramPacket(buf, to), 1));
    }

    private void enqueue(Outgoing outgoing) {
        pending.addAndGet(outgoing.frames());
        paced.addAndGet(outgoing.frames());
        if (!queue.offer(outgoing)) {
            pending.addAndGet(-outgoing.frames());
            paced.addAndGet(-outgoing.frames());
            outgoing.packet().release();
            transmitQueueDrops.addAndGet(outgoing.frames());
        }
    }

    /**
     * Sends {@code segments} UDP payloads of {@code segmentSize} bytes (the last may be shorter), {@code
     * length} bytes in all, as one UDP GSO datagram ({@link SegmentBurst}) that the kernel cuts into
     * {@code segments}. Written by the channel's event loop (Netty's {@code sendmsg} with UDP_SEGMENT):
     * handed to it at once when the pacer holds nothing (so nothing is overtaken: the loop writes in the
     * order it is handed frames) and the bucket holds a token per segment, else through the pacer, which
     * takes a token per segment.
     */
    void sendSegments(Channel channel, byte[] payloads, int length, int segmentSize, int segments,
                      InetSocketAddress to) {
        ByteBuf buf = channel.alloc().directBuffer(length);
        buf.writeBytes(payloads, 0, length);
        Outgoing outgoing = new Outgoing(channel, new SegmentedDatagramPacket(buf, segmentSize, to), segments);
        segmentedSends.incrementAndGet();
        if (paced.get() == 0) {
            boolean tokens;
            synchronized (bucket) {
                tokens = bucket.available() >= segments;
                if (tokens) {
                    bucket.take(segments);
                }
            }
            if (tokens) {
                pending.addAndGet(segments);
                channel.eventLoop().execute(() -> write(List.of(outgoing)));
                return;
            }
        }
        enqueue(outgoing);
    }

    /** {@return frames queued or handed to an event loop and not yet written} */
    int framesQueued() {
        return pending.get();
    }

    /** Runs {@code action} once, as soon as at most {@code frames} are queued or being written. */
    void whenQueuedAtMost(int frames, Runnable action) {
        drainedTo = frames;
        onDrained.set(action);
        runIfDrained(); // set, then look: a write that drained the queue before the set is not missed
    }

    /** From a channel's event loop after a batch is written, and from {@link #whenQueuedAtMost}. */
    private void runIfDrained() {
        if (onDrained.get() != null && pending.get() <= drainedTo) {
            Runnable action = onDrained.getAndSet(null);
            if (action != null) {
                action.run();
            }
        }
    }

    /**
     * The latency path: with nothing queued or being written (so order is kept) and a token in the
     * bucket, sendto(2) on the channel's socket from the calling (fabric) thread, instead of two
     * thread hand-offs (pacer, then the channel's event loop), each a wake-up that costs tens of
     * microseconds to milliseconds on a loaded 2-core machine. A UDP sendto is atomic per datagram
     * and safe beside the event loop's own writes. False (not sent): queue it as before.
     */
    private boolean sendNow(Channel channel, byte[] frame, int payload, int n, InetSocketAddress to) {
        synchronized (bucket) {
            if (bucket.nanosUntilAvailable() > 0) {
                return false;
            }
            bucket.take(1);
        }
        direct.clear();
        direct.put(frame, payload, n).flip();
        try {
            int sent = ((Socket) ((EpollDatagramChannel) channel).fd())
                    .sendTo(direct, 0, n, to.getAddress(), to.getPort());
            if (sent <= 0) {
                return false; // EAGAIN: the socket buffer is full; the pacer's queue takes it
            }
        } catch (IOException | RuntimeException e) {
            sendFailures.incrementAndGet();
        }
        framesSent.incrementAndGet();
        return true;
    }

    private void pace() {
        List<Outgoing> batch = new ArrayList<>(BATCH);
        while (!closed) {
            Outgoing first;
            try {
                first = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            if (first == null) {
                continue;
            }
            long wait;
            while ((wait = waitForToken()) > 0 && !closed) {
                LockSupport.parkNanos(wait);
            }
            batch.add(first);
            synchronized (bucket) {
                bucket.take(first.frames() - 1); // a GSO send's other segments: the bucket goes into debt
                int more = (int) Math.min(BATCH - 1, bucket.available());
                if (more > 0) {
                    queue.drainTo(batch, more);
                    for (int i = 1; i < batch.size(); i++) {
                        bucket.take(batch.get(i).frames());
                    }
                }
            }
            List<Outgoing> writes = List.copyOf(batch);
            batch.clear();
            first.channel().eventLoop().execute(() -> write(writes));
            paced.addAndGet(-frames(writes)); // handed on: a GSO send handed to the loop now comes after these
        }
        Outgoing left;
        while ((left = queue.poll()) != null) {
            left.packet().release();
        }
    }

    /** 0 and one token taken, or the nanoseconds until one is there. */
    private long waitForToken() {
        synchronized (bucket) {
            long wait = bucket.nanosUntilAvailable();
            if (wait == 0) {
                bucket.take(1);
            }
            return wait;
        }
    }

    private void write(List<Outgoing> writes) {
        Channel flushed = null;
        for (Outgoing o : writes) {
            if (!o.channel().isActive()) {
                o.packet().release();
                continue;
            }
            o.channel().write(o.packet()).addListener(f -> {
                if (!f.isSuccess()) {
                    sendFailures.incrementAndGet();
                    if (o.frames() > 1) {
                        // The kernel refused UDP_SEGMENT (EIO: a route through a netdev without checksum
                        // offload; EINVAL: segments longer than the path MTU): plain datagrams from now on;
                        // RC retransmits what this send carried.
                        segmentationRefused = true;
                    }
                }
            });
            if (flushed != null && flushed != o.channel()) {
                flushed.flush();
            }
            flushed = o.channel();
        }
        if (flushed != null) {
            flushed.flush();
        }
        int frames = frames(writes);
        framesSent.addAndGet(frames);
        pending.addAndGet(-frames);
        runIfDrained();
    }

    /** The datagrams {@code writes} become. */
    private static int frames(List<Outgoing> writes) {
        int frames = 0;
        for (Outgoing o : writes) {
            frames += o.frames();
        }
        return frames;
    }

    long framesSent() {
        return framesSent.get();
    }

    /** Whether a UDP GSO send failed: the link sends plain datagrams from then on. */
    boolean segmentationRefused() {
        return segmentationRefused;
    }

    long segmentedSends() {
        return segmentedSends.get();
    }

    long transmitQueueDrops() {
        return transmitQueueDrops.get();
    }

    /** Stops the pacer thread (waiting up to 2 s); what it had queued is released, not sent. */
    void close() {
        closed = true;
        LockSupport.unpark(pacer);
        try {
            if (pacer.isAlive()) {
                pacer.join(2_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
