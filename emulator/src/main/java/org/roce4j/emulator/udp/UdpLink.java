package org.roce4j.emulator.udp;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.unix.Socket;
import jdk.net.ExtendedSocketOptions;
import org.roce4j.emulator.DatagramReceiver;
import org.roce4j.emulator.ExternalLink;
import org.roce4j.emulator.fabric.Clock;
import org.roce4j.emulator.fabric.FaultCounters;
import org.roce4j.emulator.fabric.FaultInjector;
import org.roce4j.emulator.fabric.FrameFilter;
import org.roce4j.wire.IcrcStatus;

/**
 * RoCEv2 over UDP sockets through Netty: one datagram socket per bound address, each bound to
 * ADDRESS:4791 and sending from it, so the UDP source port the ICRC covers is 4791 (rxe accepts any
 * source port). DF is set on every socket (IP_MTU_DISCOVER = IP_PMTUDISC_DO under epoll,
 * {@code jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT} under NIO): Linux then sends DF=1 and
 * Identification 0, which the RNIC writes into the frames whose ICRC it computes.
 *
 * <p>Transmit: the RNIC hands a frame under its fabric lock; the UDP payload is copied into a
 * pooled buffer and queued (bounded: a full queue drops and counts; RC retransmission recovers).
 * A pacer thread takes frames as a token bucket allows and writes them in batches on the channel's
 * event loop. Receive: on the Netty thread, the datagram is placed behind the IP and UDP headers the
 * link can know (see {@link ReceivedIcrc}), its ICRC checked, and handed to the RNIC.
 */
final class UdpLink implements ExternalLink, AutoCloseable {
    static final int ROCE_PORT = 4791;
    private static final int ETHERNET = 14;
    /** The longest UDP payload taken: a 4096-byte MTU packet with every header fits many times. */
    static final int MAX_DATAGRAM = 9216;
    private static final int BATCH = 64;
    /** Linux's defaults for what a UDP socket puts in the fields the RNIC's AV would set (ip_default_ttl, hop_limit). */
    static final int KERNEL_TTL = 64;

    private final LinkAddresses addresses;
    private final UdpLinkConfig config;
    private final Clock clock;
    private final boolean epoll;
    private final EventLoopGroup group;
    /** The sockets bound so far; replaced whole when a late address binds (read without a lock by transmit). */
    private volatile BoundSocket[] sockets = new BoundSocket[0];
    private final ArrayBlockingQueue<Outgoing> queue;
    private final Thread pacer;
    /** Shared by the pacer and the direct path of {@link #transmit}; guarded by itself. */
    private final TokenBucket bucket;
    /** Frames queued or handed to an event loop and not yet written: the direct path waits for 0 (order). */
    private final AtomicInteger pending = new AtomicInteger();
    /** Run once when {@link #pending} is down to {@link #drainedTo}: see {@link #whenQueuedAtMost}. */
    private final AtomicReference<Runnable> onDrained = new AtomicReference<>();
    private volatile int drainedTo;
    /** The direct path's copy of a UDP payload. Under the fabric lock. */
    private final ByteBuffer direct = ByteBuffer.allocateDirect(MAX_DATAGRAM);
    private final PcapTap tap;
    private volatile DatagramReceiver receiver;
    /** The fault plan's injector, applied to every frame before it is sent; null for none. Under the fabric lock. */
    private FaultInjector faults;
    private volatile boolean closed;

    private final AtomicLong framesSent = new AtomicLong();
    private final AtomicLong directSends = new AtomicLong();
    private final AtomicLong transmitQueueDrops = new AtomicLong();
    private final AtomicLong noSocketDrops = new AtomicLong();
    private final AtomicLong sendFailures = new AtomicLong();
    private final AtomicLong datagramsReceived = new AtomicLong();
    private final AtomicLong icrcValid = new AtomicLong();
    private final AtomicLong icrcIdRecovered = new AtomicLong();
    private final AtomicLong icrcInvalid = new AtomicLong();
    private final AtomicLong icrcIdOutsideWindow = new AtomicLong();
    private final AtomicLong oversizeDrops = new AtomicLong();

    /** Destinations resolved lately: an InetSocketAddress per peer, not per frame. Under the fabric lock. */
    private final byte[][] recentIps = new byte[16][];
    private final InetSocketAddress[] recentDestinations = new InetSocketAddress[16];
    private int nextRecent;
    /** The tap's copy of a sent frame. Under the fabric lock. */
    private final byte[] txTapFrame = new byte[ETHERNET + 40 + 8 + MAX_DATAGRAM];

    private record Outgoing(Channel channel, DatagramPacket packet) {
    }

    /** A socket on ADDRESS:4791: {@code ip} is the address's bytes, compared with a frame's source. */
    private record BoundSocket(Channel channel, InetAddress address, byte[] ip) {
    }

    /** How long a further address that is not yet usable (IPv6 duplicate address detection) is retried. */
    private static final long LATE_BIND_MILLIS = 30_000;
    private static final long LATE_BIND_INTERVAL_MILLIS = 250;

    UdpLink(LinkAddresses addresses, UdpLinkConfig config, Clock clock) {
        this.addresses = addresses;
        this.config = config;
        this.clock = clock;
        this.tap = new PcapTap(config.tapMaxBytes(), config.tapValidFramesOnly());
        this.epoll = config.epoll() && Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        java.util.concurrent.ThreadFactory threads =
                Thread.ofPlatform().daemon().name("roce4j-udp-" + addresses.interfaceName()).factory();
        this.group = new MultiThreadIoEventLoopGroup(1, threads, io);
        this.queue = new ArrayBlockingQueue<>(config.transmitQueueFrames());
        this.bucket = new TokenBucket(config.packetsPerSecond(), config.burst(), clock);
        this.pacer = Thread.ofPlatform().daemon().name("roce4j-udp-pacer").unstarted(this::pace);
    }

    /** Binds the sockets and starts sending: after the RNIC is attached, so no datagram finds no receiver. */
    void start() throws IOException {
        try {
            List<InetAddress> bound = addresses.bound();
            for (int i = 0; i < bound.size(); i++) {
                InetAddress address = bound.get(i);
                try {
                    add(bind(address));
                } catch (IOException e) {
                    if (i == 0) {
                        throw e; // the address the device was opened on must work
                    }
                    bindLater(address, clock.nanoTime() + LATE_BIND_MILLIS * 1_000_000);
                }
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        pacer.start();
    }

    private void add(BoundSocket socket) {
        warmUp(socket.channel());
        synchronized (this) {
            if (closed) {
                socket.channel().close();
                return;
            }
            BoundSocket[] more = Arrays.copyOf(sockets, sockets.length + 1);
            more[more.length - 1] = socket;
            sockets = more;
        }
    }

    /**
     * A further address (GID 0, the interface's IPv6 link-local one) can be unusable for a moment:
     * Linux keeps a new IPv6 address "tentative" through duplicate address detection (about a
     * second, RFC 4862 §5.4) and bind(2) fails with EADDRNOTAVAIL meanwhile — as when a device is
     * opened right after its interface came up. The device works at once on its other addresses;
     * this one is retried in the background until it binds or {@link #LATE_BIND_MILLIS} pass, and
     * frames from its GID count as {@link UdpLinkCounters#noSocketDrops()} until then (RC resends).
     */
    private void bindLater(InetAddress address, long deadlineNanos) {
        Thread.ofPlatform().daemon().name("roce4j-udp-bind").start(() -> {
            IOException last = null;
            while (!closed && clock.nanoTime() - deadlineNanos < 0) {
                LockSupport.parkNanos(LATE_BIND_INTERVAL_MILLIS * 1_000_000);
                try {
                    add(bind(address));
                    return;
                } catch (IOException e) {
                    last = e;
                }
            }
            if (!closed && last != null) {
                System.err.println("roce4j: " + last.getMessage() + " — continuing without it");
            }
        });
    }

    /**
     * Netty's first buffer allocation on a channel loads and initialises its buffer events
     * ({@code io.netty.buffer.AllocateBufferEvent}, which loads jdk.jfr and reads its metadata) and
     * the allocator's classes: 100 to 300 ms on a loaded 2-core machine. Since {@link #transmit}
     * sends with sendto(2) without a ByteBuf, nothing did that before the first datagram arrived,
     * so both sides paid it in the first round trip — more than an RC QP's retry budget (7 retries
     * of a 67 ms timeout): RETRY_EXC_ERR between two processes. Done here, before any QP exists.
     */
    private static void warmUp(Channel channel) {
        channel.eventLoop().submit(() -> {
            ByteBuf buf = channel.config().getAllocator().directBuffer(MAX_DATAGRAM + 1);
            buf.writeByte(0);
            new DatagramPacket(buf, (InetSocketAddress) channel.localAddress()).release();
        }).awaitUninterruptibly();
    }

    String transportName() {
        return epoll ? "epoll" : "nio";
    }

    private BoundSocket bind(InetAddress address) throws IOException {
        boolean v6 = address instanceof Inet6Address;
        SocketProtocolFamily family = v6 ? SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
        Bootstrap bootstrap = new Bootstrap().group(group)
                .channelFactory(() -> epoll ? new EpollDatagramChannel(family) : new NioDatagramChannel(family))
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM + 1))
                .handler(new Receiver(address));
        if (config.receiveBufferBytes() > 0) {
            bootstrap.option(ChannelOption.SO_RCVBUF, config.receiveBufferBytes());
        }
        if (epoll) {
            // linux/in.h IP_MTU_DISCOVER (10) = IP_PMTUDISC_DO (2): DF set, never fragment locally;
            // linux/in6.h IPV6_MTU_DISCOVER (23) = IPV6_PMTUDISC_DO (2).
            bootstrap.option(v6 ? new IntegerUnixChannelOption("IPV6_MTU_DISCOVER", 41, 23)
                    : new IntegerUnixChannelOption("IP_MTU_DISCOVER", 0, 10), 2);
            if (v6) {
                // Linux rxe sends RoCEv2 over IPv6 with UDP checksum 0 (its tunnel socket has
                // use_udp6_tx_checksums off), which RFC 8200 §8.1 lets a receiver drop and Linux does
                // unless the socket sets linux/udp.h UDP_NO_CHECK6_RX (102, level SOL_UDP 17), as
                // rxe's own socket does. The ICRC protects the payload instead.
                bootstrap.option(new IntegerUnixChannelOption("UDP_NO_CHECK6_RX", 17, 102), 1);
            }
        } else {
            bootstrap.option(NioChannelOption.of(ExtendedSocketOptions.IP_DONTFRAGMENT), true);
        }
        ChannelFuture bound = bootstrap.bind(new InetSocketAddress(address, ROCE_PORT)).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            throw new IOException("cannot bind UDP " + new InetSocketAddress(address, ROCE_PORT) + " ("
                    + transportName() + "): " + cause.getMessage()
                    + " — is another RoCE device (roce4j or Linux rxe) on this address?", cause);
        }
        return new BoundSocket(bound.channel(), address, address.getAddress());
    }

    // ---- ExternalLink ---------------------------------------------------------------------

    @Override
    public int udpSourcePort() {
        return ROCE_PORT;
    }

    @Override
    public boolean zeroIpv4Identification() {
        return true;
    }

    @Override
    public void attached(DatagramReceiver datagramReceiver) {
        this.receiver = datagramReceiver;
    }

    @Override
    public void transmit(byte[] frame, int offset, int length) {
        FaultInjector injector = faults;
        if (injector != null && offset == 0) {
            long now = clock.nanoTime();
            if (injector.deliveryTimeNanos(frame, length, now, now) == FrameFilter.DROP) {
                return;
            }
            if (injector.duplicateDeliveryTimeNanos(frame, length, now, now) != FrameFilter.DROP) {
                send(frame, offset, length);
            }
        }
        send(frame, offset, length);
    }

    /**
     * Applies {@code plan} to every frame sent from now on, as netem on the sending interface
     * would: drop, duplicate (sent twice) and corrupt (a byte under the ICRC changed before
     * sending). Delay and reorder rules are decided but not carried out — a frame leaves when it
     * is sent. Under the fabric lock; null removes the plan.
     */
    void faults(FaultInjector injector) {
        faults = injector;
    }

    FaultCounters faultCounters() {
        FaultInjector injector = faults;
        return injector == null ? FaultCounters.NONE : injector.counters();
    }

    private void send(byte[] frame, int offset, int length) {
        int ip = offset + ETHERNET;
        boolean v6 = (frame[ip] & 0xF0) == 0x60;
        int addressLength = v6 ? 16 : 4;
        int source = v6 ? ip + 8 : ip + 12;
        int destination = source + addressLength;
        int payload = ip + (v6 ? 40 : 20) + 8;
        int n = offset + length - payload;
        BoundSocket socket = socketFor(frame, source, addressLength);
        if (socket == null || closed) {
            noSocketDrops.incrementAndGet();
            return;
        }
        Channel channel = socket.channel();
        InetSocketAddress to = destination(frame, destination, addressLength, socket.address());
        if (to == null) {
            noSocketDrops.incrementAndGet();
            return;
        }
        if (tap.isOpen()) {
            tapSent(frame, offset, length, v6);
        }
        if (epoll && pending.get() == 0 && sendNow(channel, frame, payload, n, to)) {
            return;
        }
        ByteBuf buf = channel.alloc().directBuffer(n);
        buf.writeBytes(frame, payload, n);
        pending.incrementAndGet();
        if (!queue.offer(new Outgoing(channel, new DatagramPacket(buf, to)))) {
            pending.decrementAndGet();
            buf.release();
            transmitQueueDrops.incrementAndGet();
        }
    }

    @Override
    public int framesQueued() {
        return pending.get();
    }

    @Override
    public void whenQueuedAtMost(int frames, Runnable action) {
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
        directSends.incrementAndGet();
        return true;
    }

    private BoundSocket socketFor(byte[] frame, int source, int length) {
        for (BoundSocket socket : sockets) {
            byte[] a = socket.ip();
            if (a.length == length && Arrays.equals(frame, source, source + length, a, 0, length)) {
                return socket;
            }
        }
        return null;
    }

    private InetSocketAddress destination(byte[] frame, int at, int length, InetAddress from) {
        for (int i = 0; i < recentIps.length; i++) {
            byte[] ip = recentIps[i];
            if (ip != null && ip.length == length && Arrays.equals(frame, at, at + length, ip, 0, length)) {
                return recentDestinations[i];
            }
        }
        byte[] ip = Arrays.copyOfRange(frame, at, at + length);
        InetAddress address;
        try {
            if (length == 16 && ip[0] == (byte) 0xfe && (ip[1] & 0xC0) == 0x80
                    && from instanceof Inet6Address local) {
                address = Inet6Address.getByAddress(null, ip, local.getScopeId()); // link-local: our interface
            } else {
                address = InetAddress.getByAddress(ip);
            }
        } catch (UnknownHostException e) {
            return null;
        }
        InetSocketAddress to = new InetSocketAddress(address, ROCE_PORT);
        recentIps[nextRecent] = ip;
        recentDestinations[nextRecent] = to;
        nextRecent = (nextRecent + 1) % recentIps.length;
        return to;
    }

    /** The sent frame as the kernel puts it on the wire: the socket's TOS 0 and TTL 64, a real UDP checksum. */
    private void tapSent(byte[] frame, int offset, int length, boolean v6) {
        byte[] t = txTapFrame;
        System.arraycopy(frame, offset, t, 0, length);
        int ip = ETHERNET;
        if (v6) {
            t[ip] = 0x60; // traffic class and flow label: the socket's (0; Linux may set an automatic flow label)
            t[ip + 1] = 0;
            t[ip + 2] = 0;
            t[ip + 3] = 0;
            t[ip + 7] = (byte) KERNEL_TTL;
        } else {
            t[ip + 1] = 0;
            t[ip + 8] = (byte) KERNEL_TTL;
            Ipv4Checksum.fill(t, ip);
            int udp = ip + 20;
            int udpLength = length - ETHERNET - 20;
            int sum = Ipv4Checksum.udp(t, ip, udp, udpLength);
            t[udp + 6] = (byte) (sum >>> 8);
            t[udp + 7] = (byte) sum;
        }
        tap.write(captureNanos(), t, 0, length);
    }

    // ---- pacing ---------------------------------------------------------------------------

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
                int more = (int) Math.min(BATCH - 1, bucket.available());
                if (more > 0) {
                    int taken = queue.drainTo(batch, more);
                    bucket.take(taken);
                }
            }
            List<Outgoing> writes = List.copyOf(batch);
            batch.clear();
            first.channel().eventLoop().execute(() -> write(writes));
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
        framesSent.addAndGet(writes.size());
        pending.addAndGet(-writes.size());
        runIfDrained();
    }

    // ---- receive --------------------------------------------------------------------------

    /** One per socket, run on its event loop thread: the buffer and ICRC state are its own. */
    private final class Receiver extends SimpleChannelInboundHandler<DatagramPacket> {
        private final InetAddress local;
        private final byte[] rx = new byte[ETHERNET + 40 + 8 + MAX_DATAGRAM];
        private final ReceivedIcrc icrc = new ReceivedIcrc();

        Receiver(InetAddress local) {
            this.local = local;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            datagramsReceived.incrementAndGet();
            ByteBuf content = packet.content();
            int n = content.readableBytes();
            if (n > MAX_DATAGRAM) {
                oversizeDrops.incrementAndGet();
                return;
            }
            InetSocketAddress sender = packet.sender();
            boolean v6 = local instanceof Inet6Address;
            int ip = ETHERNET;
            int udp = ip + (v6 ? 40 : 20);
            int bth = udp + 8;
            content.getBytes(content.readerIndex(), rx, bth, n);
            writeHeaders(sender, v6, ip, udp, n);
            IcrcStatus status = IcrcStatus.NOT_CHECKED;
            if (n >= 12 + 4) { // shorter: not even a BTH; the RNIC's parse drops it and counts why
                switch (icrc.check(rx, ip, bth + n - 4, clock.nanoTime())) {
                    case VALID -> {
                        icrcValid.incrementAndGet();
                        status = IcrcStatus.VALID;
                    }
                    case VALID_ID_RECOVERED, ID_RESYNCED -> {
                        icrcIdRecovered.incrementAndGet();
                        status = IcrcStatus.VALID;
                    }
                    case ID_OUTSIDE_WINDOW -> {
                        icrcIdOutsideWindow.incrementAndGet();
                        status = IcrcStatus.INVALID;
                    }
                    case INVALID -> {
                        icrcInvalid.incrementAndGet();
                        status = IcrcStatus.INVALID;
                    }
                }
            }
            if (tap.isOpen() && tap.wantsReceived(status == IcrcStatus.VALID)) {
                if (!v6) {
                    int sum = Ipv4Checksum.udp(rx, ip, udp, 8 + n);
                    rx[udp + 6] = (byte) (sum >>> 8);
                    rx[udp + 7] = (byte) sum;
                }
                tap.write(captureNanos(), rx, 0, bth + n);
            }
            DatagramReceiver to = receiver;
            if (to != null) {
                to.onDatagram(rx, ip, bth, bth + n, status);
            }
        }

        /**
         * Ethernet (to our MAC, from 00:00:00:00:00:00: a socket does not show the sender's) and
         * the IP and UDP headers as far as a socket tells them: IPv4 with Identification 0 and DF
         * (the ICRC check replaces them by the sender's when it recovers another), TOS 0, TTL 64;
         * IPv6 with traffic class and flow label 0 and hop limit 64 (all three masked by the ICRC).
         */
        private void writeHeaders(InetSocketAddress sender, boolean v6, int ip, int udp, int n) {
            byte[] b = rx;
            long mac = addresses.mac().value();
            for (int i = 0; i < 6; i++) {
                b[i] = (byte) (mac >>> (40 - 8 * i));
                b[6 + i] = 0;
            }
            byte[] src = sender.getAddress().getAddress();
            byte[] dst = local.getAddress();
            int udpLength = 8 + n;
            if (v6) {
                b[12] = (byte) 0x86;
                b[13] = (byte) 0xDD;
                b[ip] = 0x60;
                b[ip + 1] = 0;
                b[ip + 2] = 0;
                b[ip + 3] = 0;
                b[ip + 4] = (byte) (udpLength >>> 8);
                b[ip + 5] = (byte) udpLength;
                b[ip + 6] = 17;
                b[ip + 7] = (byte) KERNEL_TTL;
                System.arraycopy(src, src.length - 16, b, ip + 8, 16);
                System.arraycopy(dst, 0, b, ip + 24, 16);
            } else {
                b[12] = 0x08;
                b[13] = 0x00;
                int total = 20 + udpLength;
                b[ip] = 0x45;
                b[ip + 1] = 0;
                b[ip + 2] = (byte) (total >>> 8);
                b[ip + 3] = (byte) total;
                b[ip + 4] = 0;
                b[ip + 5] = 0;
                b[ip + 6] = 0x40;
                b[ip + 7] = 0;
                b[ip + 8] = (byte) KERNEL_TTL;
                b[ip + 9] = 17;
                System.arraycopy(src, src.length - 4, b, ip + 12, 4);
                System.arraycopy(dst, 0, b, ip + 16, 4);
                Ipv4Checksum.fill(b, ip);
            }
            int sourcePort = sender.getPort();
            b[udp] = (byte) (sourcePort >>> 8);
            b[udp + 1] = (byte) sourcePort;
            b[udp + 2] = (byte) (ROCE_PORT >>> 8);
            b[udp + 3] = (byte) ROCE_PORT;
            b[udp + 4] = (byte) (udpLength >>> 8);
            b[udp + 5] = (byte) udpLength;
            b[udp + 6] = 0;
            b[udp + 7] = 0;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            sendFailures.incrementAndGet(); // ICMP errors surface here (port unreachable, EMSGSIZE)
        }
    }

    // ---- tap, counters, close -------------------------------------------------------------

    void tap(java.nio.file.Path file) throws IOException {
        tap.open(file);
    }

    PcapTapCounters tapCounters() {
        return tap.counters();
    }

    /** A capture record's timestamp: the injected clock's time since the epoch, as the fabric's tap stamps. */
    private long captureNanos() {
        return clock.nanoTime() + clock.epochOffsetNanos();
    }

    UdpLinkCounters counters() {
        return new UdpLinkCounters(framesSent.get(), transmitQueueDrops.get(), noSocketDrops.get(), sendFailures.get(),
                datagramsReceived.get(), icrcValid.get(), icrcIdRecovered.get(), icrcInvalid.get(), oversizeDrops.get(),
                icrcIdOutsideWindow.get());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        LockSupport.unpark(pacer);
        try {
            if (pacer.isAlive()) {
                pacer.join(2_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        BoundSocket[] open;
        synchronized (this) {
            open = sockets;
        }
        for (BoundSocket socket : open) {
            socket.channel().close().awaitUninterruptibly(2_000);
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5_000);
        tap.close();
    }
}
