package org.roce4j.emulator.udp;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import jdk.net.ExtendedSocketOptions;
import org.roce4j.emulator.ReceivePolling;
import org.roce4j.emulator.DatagramReceiver;
import org.roce4j.emulator.ExternalLink;
import org.roce4j.emulator.HostRoute;
import org.roce4j.emulator.fabric.Clock;
import org.roce4j.emulator.fabric.FaultCounters;
import org.roce4j.emulator.fabric.FaultInjector;
import org.roce4j.emulator.fabric.RetransmissionMarks;
import org.roce4j.emulator.fabric.FrameFilter;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.IpHeader;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.PacketWriter;
import org.roce4j.wire.UdpHeader;

/**
 * RoCEv2 over UDP sockets through Netty: one datagram socket per bound address, each bound to
 * ADDRESS:4791 and sending from it, so the UDP source port the ICRC covers is 4791 (rxe accepts any
 * source port). DF is set on every socket (IP_MTU_DISCOVER = IP_PMTUDISC_DO under epoll,
 * {@code jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT} under NIO): Linux then sends DF=1 and
 * Identification 0, which the RNIC writes into the frames whose ICRC it computes.
 *
 * <p>Transmit: the RNIC hands a frame under its fabric lock; this class finds the socket of its
 * source address and its destination, captures it as the kernel sends it, and hands its UDP payload
 * to the {@link TransmitPacer} (a token bucket, a bounded queue, batched writes). Receive: the
 * {@link ReceiveSide}'s handler on each socket's Netty thread places the datagram behind the IP and
 * UDP headers the link can know (see {@link ReceivedIcrc}), checks its ICRC, and hands it to the RNIC.
 */
final class UdpLink implements ExternalLink, AutoCloseable {
    private static final int ROCE_PORT = UdpHeader.ROCE_PORT;
    /** The longest UDP payload taken: a 4096-byte MTU packet with every header fits many times. */
    static final int MAX_DATAGRAM = 9216;
    /** Linux's defaults for what a UDP socket puts in the fields the RNIC's AV would set (ip_default_ttl, hop_limit). */
    static final int KERNEL_TTL = 64;

    private final LinkAddresses addresses;
    private final UdpLinkConfig config;
    private final Clock clock;
    /** Runs a task under the RNIC's fabric lock: a held-back frame is sent from the event loop. */
    private final Consumer<Runnable> underFabricLock;
    private final boolean epoll;
    private final EventLoopGroup group;
    /** The sockets bound so far; replaced whole when a late address binds (read without a lock by transmit). */
    private volatile BoundSocket[] sockets = new BoundSocket[0];
    private final TransmitPacer pacer;
    /** Whether a duty cycle's frames to one peer leave as one UDP GSO send ({@link SegmentBurst}). */
    private final boolean segmentation;
    private final SegmentBurst burst = new SegmentBurst();
    /** Between {@link #beginBurst} and {@link #endBurst}: under the fabric lock. */
    private boolean bursting;
    private final PcapTap tap;
    private final ReceiveSide received;
    private final MulticastSockets multicast;
    /** Reads the unicast sockets by polling ({@link ReceivePolling}); null when Netty's loop reads them. */
    private final PolledReceive polledReceive;
    /** The host's routing and neighbour tables, for rdma_cm's address resolution. */
    private final HostNetworkTables hostTables = new HostNetworkTables();
    /** The fault plan's injector, applied to every frame before it is sent; null for none. Under the fabric lock. */
    private FaultInjector faults;
    private volatile boolean closed;

    private final AtomicLong noSocketDrops = new AtomicLong();
    /** Shared by both sides: a failed write, and ICMP errors, which surface on the receive side. */
    private final AtomicLong sendFailures = new AtomicLong();

    /** Destinations resolved lately: an InetSocketAddress per peer, not per frame. Under the fabric lock. */
    private final byte[][] recentIps = new byte[16][];
    private final InetSocketAddress[] recentDestinations = new InetSocketAddress[16];
    private int nextRecent;
    /** The tap's copy of a sent frame. Under the fabric lock. */
    private final byte[] txTapFrame = new byte[PacketWriter.MAX_HEADERS_LENGTH + MAX_DATAGRAM];
    /** Where a sent frame's addresses and UDP payload are. Under the fabric lock. */
    private final PacketInfo sentHeaders = new PacketInfo();
    /** Which sent frames are retransmissions, for the tap's comments. Under the fabric lock. */
    private final RetransmissionMarks retransmissions = new RetransmissionMarks();

    /** A socket on ADDRESS:4791: {@code ip} is the address's bytes, compared with a frame's source. */
    private record BoundSocket(Channel channel, InetAddress address, byte[] ip, ReceiveSide.Receiver handler) {
    }

    /** How long a further address that is not yet usable (IPv6 duplicate address detection) is retried. */
    private static final long LATE_BIND_MILLIS = 30_000;
    private static final long LATE_BIND_INTERVAL_MILLIS = 250;

    UdpLink(LinkAddresses addresses, UdpLinkConfig config, Clock clock, Consumer<Runnable> underFabricLock) {
        this.addresses = addresses;
        this.config = config;
        this.clock = clock;
        this.underFabricLock = underFabricLock;
        this.tap = new PcapTap(config.tapMaxBytes(), config.tapValidFramesOnly());
        this.epoll = config.epoll() && Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        java.util.concurrent.ThreadFactory threads =
                Thread.ofPlatform().daemon().name("roce4j-udp-" + addresses.interfaceName()).factory();
        this.group = new MultiThreadIoEventLoopGroup(1, threads, io);
        this.pacer = new TransmitPacer(config, clock, epoll, sendFailures);
        this.segmentation = config.segmentationOffload() && epoll && EpollDatagramChannel.isSegmentedDatagramPacketSupported();
        this.received = new ReceiveSide(addresses.mac(), clock, tap, sendFailures);
        this.multicast = new MulticastSockets(addresses.interfaceName(), this::bindToGroup);
        this.polledReceive = config.receivePolling() != ReceivePolling.OFF && epoll
                ? new PolledReceive(config.receivePolling(), clock, group.next(), sendFailures) : null;
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
        if (polledReceive != null) {
            polledReceive.start();
        }
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
        if (polledReceive != null) {
            polledReceive.add(socket.channel(), socket.handler());
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
        // A datagram to a multicast group leaves with TTL 64, as rxe's (the AV's, not the socket default 1),
        // on the device's interface rather than the default route's.
        ReceiveSide.Receiver handler = received.handlerFor(address);
        Bootstrap bootstrap = bootstrap(address, handler).option(ChannelOption.IP_MULTICAST_TTL, KERNEL_TTL);
        ChannelFuture bound = bootstrap.bind(new InetSocketAddress(address, ROCE_PORT)).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            throw new IOException("cannot bind UDP " + new InetSocketAddress(address, ROCE_PORT) + " ("
                    + transportName() + "): " + cause.getMessage()
                    + " — is another RoCE device (roce4j or Linux rxe) on this address?", cause);
        }
        NetworkInterface netdev = NetworkInterface.getByName(addresses.interfaceName());
        if (netdev != null) {
            try {
                bound.channel().config().setOption(ChannelOption.IP_MULTICAST_IF, netdev);
            } catch (io.netty.channel.ChannelException e) {
                // no multicast on this interface for this family (IPv6 on lo): unicast is unaffected
            }
        }
        return new BoundSocket(bound.channel(), address, address.getAddress(), handler);
    }

    /** A socket bound to GROUP:4791 for {@link MulticastSockets}: SO_REUSEADDR, so every device of the host hears the group. */
    private ChannelFuture bindToGroup(InetAddress groupAddress) {
        return bootstrap(groupAddress, received.handlerFor(groupAddress)).option(ChannelOption.SO_REUSEADDR, true)
                .bind(new InetSocketAddress(groupAddress, ROCE_PORT));
    }

    /** A datagram socket of the address's family, DF set, its datagrams handed by {@code handler} to the RNIC. */
    private Bootstrap bootstrap(InetAddress address, ReceiveSide.Receiver handler) {
        boolean v6 = address instanceof Inet6Address;
        SocketProtocolFamily family = v6 ? SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
        Bootstrap bootstrap = new Bootstrap().group(group)
                .channelFactory(() -> epoll ? new EpollDatagramChannel(family) : new NioDatagramChannel(family))
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM + 1))
                .handler(handler);
        if (config.receiveBufferBytes() > 0) {
            bootstrap.option(ChannelOption.SO_RCVBUF, config.receiveBufferBytes());
        }
        if (epoll) {
            // linux/in.h IP_MTU_DISCOVER (10) = IP_PMTUDISC_DO (2): DF set, never fragment locally;
            // linux/in6.h IPV6_MTU_DISCOVER (23) = IPV6_PMTUDISC_DO (2).
            bootstrap.option(v6 ? new IntegerUnixChannelOption("IPV6_MTU_DISCOVER", 41, 23)
                    : new IntegerUnixChannelOption("IP_MTU_DISCOVER", 0, 10), 2);
            if (segmentation && polledReceive == null) {
                // The receiving half of the offload: linux/udp.h UDP_GRO lets one read return a run of
                // datagrams of one flow, coalesced (a peer's GSO send arrives whole on loopback); Netty
                // cuts it at the segment size the kernel reports, one DatagramPacket per frame.
                bootstrap.option(EpollChannelOption.UDP_GRO, true)
                        .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(SegmentBurst.MAX_TOTAL + 1));
            }
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
        return bootstrap;
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
    public void flushIcrcAsRxe(boolean asRxe) {
        received.flushIcrcAsRxe(asRxe);
    }

    @Override
    public void attached(DatagramReceiver datagramReceiver) {
        received.attached(datagramReceiver);
    }

    @Override
    public boolean receiveIsPolled() {
        return polledReceive != null;
    }

    @Override
    public int pollReceive() {
        return polledReceive == null ? 0 : polledReceive.poll();
    }

    @Override
    public void transmit(byte[] frame, int offset, int length) {
        FaultInjector injector = faults;
        List<String> marks = tap.isOpen() ? retransmissions.onSent(frame, offset, length) : List.of();
        if (injector == null || offset != 0) {
            send(frame, offset, length, marks);
            return;
        }
        long now = clock.nanoTime();
        long due;
        boolean twice;
        List<String> notes = marks;
        List<String> duplicateNotes = marks;
        // One injector may serve several devices, each calling under its own fabric lock (the testkit's
        // UDP nodes share one, as the nodes of an in-process fabric share its injector): its rules count
        // frames and draw from their randoms one frame at a time, in the order the frames reach it.
        synchronized (injector) {
            due = injector.deliveryTimeNanos(frame, length, now, now);
            twice = due != FrameFilter.DROP && injector.duplicateDeliveryTimeNanos(frame, length, now, due) != FrameFilter.DROP;
            if (tap.isOpen()) {
                notes = RetransmissionMarks.join(marks, injector.lastFrameFaults());
                duplicateNotes = twice ? RetransmissionMarks.join(marks, injector.lastDuplicateFaults()) : notes;
            }
        }
        if (due == FrameFilter.DROP) {
            if (tap.isOpen() && sentHeaders.locateFrameHeaders(frame, offset, length)) {
                // Captured as sent, as the fabric's tap does; pcapng says it was dropped.
                tapSent(frame, offset, length, sentHeaders, notes);
            }
            return;
        }
        if (due > now) {
            sendLater(Arrays.copyOf(frame, length), due - now, notes, twice ? duplicateNotes : null);
            return;
        }
        if (twice) {
            send(frame, offset, length, duplicateNotes);
        }
        send(frame, offset, length, notes);
    }

    /**
     * A delay or reorder rule held the frame back: it leaves that much later in real time, from the
     * link's event loop and under the fabric lock (which guards what {@link #send} uses), so frames
     * sent meanwhile overtake it, as on the in-process fabric. The wait is as precise as Netty's
     * scheduler (tens of µs on a loaded host), not the nanosecond of virtual time; the capture
     * stamps the frame when it leaves.
     *
     * @param duplicateNotes the second copy's notes, or null for no copy
     */
    private void sendLater(byte[] frame, long nanos, List<String> notes, List<String> duplicateNotes) {
        try {
            group.schedule(() -> underFabricLock.accept(() -> {
                if (duplicateNotes != null) {
                    send(frame, 0, frame.length, duplicateNotes);
                }
                send(frame, 0, frame.length, notes);
            }), nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            noSocketDrops.incrementAndGet(); // the link is closing: the socket is gone
        }
    }

    /**
     * Applies {@code injector}'s plan to every frame sent from now on, as netem on the sending
     * interface would: drop, duplicate (sent twice), corrupt (a byte under the ICRC changed before
     * sending), delay and reorder (sent that much later, in real time). The injector may be shared
     * with other links (see {@link #transmit}). Under the fabric lock; null removes the plan.
     */
    void faults(FaultInjector injector) {
        faults = injector;
    }

    FaultCounters faultCounters() {
        FaultInjector injector = faults;
        if (injector == null) {
            return FaultCounters.NONE;
        }
        synchronized (injector) {
            return injector.counters();
        }
    }

    /** @param faults what the fault plan did to the frame, for the tap's comments */
    private void send(byte[] frame, int offset, int length, List<String> faults) {
        PacketInfo headers = sentHeaders;
        if (!headers.locateFrameHeaders(frame, offset, length)) {
            noSocketDrops.incrementAndGet(); // too short for IP and UDP headers: nothing to address a socket by
            return;
        }
        int addressLength = headers.ipAddressLength();
        int destination = headers.ipDestinationOffset();
        int payload = headers.bthOffset();
        int n = offset + length - payload;
        BoundSocket socket = socketFor(frame, headers.ipSourceOffset(), addressLength);
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
        if (bursting && offset == 0 && SegmentBurst.eligible(headers.ipVersion(), n)) {
            if (!burst.continues(channel, to, n)) {
                burst.sendTo(pacer);
            }
            burst.renumber(frame, headers.ipOffset(), length - IcrcCalculator.LENGTH, burst.nextIdentification());
            if (tap.isOpen()) {
                tapSent(frame, offset, length, headers, faults);
            }
            burst.add(channel, to, frame, payload, n);
            return;
        }
        burst.sendTo(pacer); // what the run holds was sent before this frame
        if (tap.isOpen()) {
            tapSent(frame, offset, length, headers, faults);
        }
        pacer.send(channel, frame, payload, n, to);
    }

    @Override
    public void beginBurst() {
        bursting = segmentation && !pacer.segmentationRefused();
    }

    @Override
    public void endBurst() {
        bursting = false;
        burst.sendTo(pacer);
    }

    @Override
    public void multicastGroups(Supplier<List<InetAddress>> current) {
        synchronized (multicast) { // read and applied together: concurrent attaches end with the last groups
            if (!closed) {
                multicast.update(current.get());
            }
        }
    }

    /** {@return the multicast groups the link has joined on its interface} */
    List<InetAddress> joinedGroups() {
        return multicast.joined();
    }

    long multicastJoinFailures() {
        return multicast.joinFailures();
    }

    @Override
    public int framesQueued() {
        return pacer.framesQueued();
    }

    @Override
    public void whenQueuedAtMost(int frames, Runnable action) {
        pacer.whenQueuedAtMost(frames, action);
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

    /**
     * The sent frame as the kernel puts it on the wire: the socket's TOS / traffic class and flow
     * label 0 (Linux may set an automatic flow label) and TTL / hop limit 64, and over IPv4 a real
     * UDP checksum (over IPv6 the frame already carries one).
     */
    private void tapSent(byte[] frame, int offset, int length, PacketInfo headers, List<String> faults) {
        int ip = headers.ipOffset() - offset;
        byte[] t = txTapFrame;
        System.arraycopy(frame, offset, t, 0, length);
        IpHeader.writeVariantFields(t, ip, 0, 0, KERNEL_TTL);
        if (headers.ipVersion() != 6) {
            UdpHeader.fillChecksum(t, ip);
        }
        tap.write(clock.epochNanos(), t, 0, length, faults);
    }

    // ---- tap, counters, close -------------------------------------------------------------

    void tap(java.nio.file.Path file) throws IOException {
        tap.open(file);
    }

    PcapTapCounters tapCounters() {
        return tap.counters();
    }

    UdpLinkCounters counters() {
        return new UdpLinkCounters(pacer.framesSent(), pacer.transmitQueueDrops(), noSocketDrops.get(), sendFailures.get(),
                received.datagramsReceived(), received.icrcValid(), received.icrcIdRecovered(), received.icrcInvalid(),
                received.oversizeDrops(), received.icrcIdOutsideWindow(), pacer.segmentedSends(),
                polledReceive == null ? 0 : polledReceive.datagramsPolled());
    }

    /** The host's kernel routes this device's datagrams: its routing table answers (see {@link HostNetworkTables}). */
    @Override
    public HostRoute route(InetAddress destination, InetAddress source) {
        return hostTables.route(destination, source);
    }

    @Override
    public CompletionStage<Boolean> neighbourValid(HostRoute route) {
        return hostTables.neighbourValid(route);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (polledReceive != null) {
            polledReceive.close(); // before the sockets close: a descriptor may be reused at once
        }
        pacer.close();
        multicast.close();
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
