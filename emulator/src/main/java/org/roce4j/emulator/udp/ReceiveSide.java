package org.roce4j.emulator.udp;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.DatagramSocketAddress;
import io.netty.channel.unix.Socket;
import org.roce4j.emulator.DatagramReceiver;
import org.roce4j.emulator.fabric.Clock;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.IcrcStatus;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.PacketWriter;
import org.roce4j.wire.UdpHeader;

/**
 * The UDP link's receive side: on a socket's Netty thread, each datagram is placed behind the
 * Ethernet, IP and UDP headers the link can know (see {@link ReceivedIcrc}), its ICRC checked,
 * captured, and handed to the RNIC. One handler per socket; the counters are the link's.
 */
final class ReceiveSide {
    /** Our MAC, the destination of every received frame (48 bits). */
    private final long ourMac;
    private final Clock clock;
    private final PcapTap tap;
    /** The link's: ICMP errors (port unreachable, EMSGSIZE) surface on a receiving channel. */
    private final AtomicLong sendFailures;
    private volatile DatagramReceiver receiver;
    private volatile boolean flushIcrcAsRxe;

    private final AtomicLong datagramsReceived = new AtomicLong();
    private final AtomicLong icrcValid = new AtomicLong();
    private final AtomicLong icrcIdRecovered = new AtomicLong();
    private final AtomicLong icrcInvalid = new AtomicLong();
    private final AtomicLong icrcIdOutsideWindow = new AtomicLong();
    private final AtomicLong oversizeDrops = new AtomicLong();

    ReceiveSide(MacAddress mac, Clock clock, PcapTap tap, AtomicLong sendFailures) {
        this.ourMac = mac.value();
        this.clock = clock;
        this.tap = tap;
        this.sendFailures = sendFailures;
    }

    /** Whether an RC FLUSH's ICRC is checked as Linux rxe computes it ({@link ExternalLink#flushIcrcAsRxe}). */
    void flushIcrcAsRxe(boolean asRxe) {
        this.flushIcrcAsRxe = asRxe;
    }

    /** Datagrams from now on go to {@code datagramReceiver} (the RNIC). */
    void attached(DatagramReceiver datagramReceiver) {
        this.receiver = datagramReceiver;
    }

    /** {@return a new handler for the socket bound to {@code local}} */
    Receiver handlerFor(InetAddress local) {
        return new Receiver(local);
    }

    long datagramsReceived() {
        return datagramsReceived.get();
    }

    long icrcValid() {
        return icrcValid.get();
    }

    long icrcIdRecovered() {
        return icrcIdRecovered.get();
    }

    long icrcInvalid() {
        return icrcInvalid.get();
    }

    long icrcIdOutsideWindow() {
        return icrcIdOutsideWindow.get();
    }

    long oversizeDrops() {
        return oversizeDrops.get();
    }

    /**
     * One per socket, run on its event loop thread — or, while {@link PolledReceive} reads the socket, by
     * the one thread that holds its lock: the buffer and ICRC state are its own.
     */
    final class Receiver extends SimpleChannelInboundHandler<DatagramPacket> {
        private final boolean v6;
        private final byte[] localAddress;
        /** The frame's Ethernet destination: our MAC, or a group socket's group MAC (01:00:5e…, 33:33…). */
        private final long destinationMac;
        private final byte[] rx = new byte[PacketWriter.MAX_HEADERS_LENGTH + UdpLink.MAX_DATAGRAM];
        private final PacketWriter headers = new PacketWriter();
        private final ReceivedIcrc icrc = new ReceivedIcrc();
        private volatile Runnable whenRead;

        Receiver(InetAddress local) {
            this.v6 = local instanceof Inet6Address;
            this.localAddress = local.getAddress();
            this.destinationMac = local.isMulticastAddress()
                    ? org.roce4j.emulator.node.MulticastGroups.groupMac(org.roce4j.verbs.Gid.of(local)) : ourMac;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            datagramsReceived.incrementAndGet();
            ByteBuf content = packet.content();
            int n = content.readableBytes();
            if (n > UdpLink.MAX_DATAGRAM) {
                oversizeDrops.incrementAndGet();
                return;
            }
            int end = headersFor(packet.sender(), n);
            content.getBytes(content.readerIndex(), rx, headers.udpPayloadOffset(), n);
            handOver(end);
            if (whenRead != null) {
                whenRead.run();
            }
        }

        /**
         * Reads one datagram from {@code socket} (non-blocking) through {@code in}, a direct buffer of
         * {@link UdpLink#MAX_DATAGRAM} + 1 bytes, and handles it as {@link #channelRead0} does.
         *
         * @return false when the socket had none
         */
        boolean readFrom(Socket socket, ByteBuffer in) throws IOException {
            DatagramSocketAddress sender = socket.recvFrom(in, 0, in.capacity());
            if (sender == null) {
                return false;
            }
            datagramsReceived.incrementAndGet();
            int n = sender.receivedAmount();
            if (n > UdpLink.MAX_DATAGRAM) {
                oversizeDrops.incrementAndGet();
                return true;
            }
            int end = headersFor(sender, n);
            in.get(0, rx, headers.udpPayloadOffset(), n);
            handOver(end);
            return true;
        }

        /** Runs on every datagram Netty's loop reads (not those {@link #readFrom} reads). */
        void whenReadByEventLoop(Runnable action) {
            this.whenRead = action;
        }

        /** Checks the ICRC of the datagram laid out in {@code rx} up to {@code end}, captures it, hands it on. */
        private void handOver(int end) {
            int ip = headers.ipOffset();
            int bth = headers.udpPayloadOffset();
            IcrcStatus status = IcrcStatus.NOT_CHECKED;
            if (end - bth >= HeaderType.BTH.length() + IcrcCalculator.LENGTH) {
                // shorter: not even a BTH; the RNIC's parse drops it and counts why
                icrc.flushAsRxe(flushIcrcAsRxe);
                switch (icrc.check(rx, ip, end - IcrcCalculator.LENGTH, clock.nanoTime())) {
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
                    UdpHeader.fillChecksum(rx, ip); // as the kernel received it (over IPv6: rxe's 0, kept)
                }
                tap.write(clock.epochNanos(), rx, 0, end, List.of());
            }
            DatagramReceiver to = receiver;
            if (to != null) {
                to.onDatagram(rx, ip, bth, end, status);
            }
        }

        /**
         * Ethernet (to our MAC or the group's, from 00:00:00:00:00:00: a socket does not show the sender's) and
         * the IP and UDP headers as far as a socket tells them: IPv4 with Identification 0 and DF
         * (the ICRC check replaces them by the sender's when it recovers another), TOS 0, TTL 64;
         * IPv6 with traffic class and flow label 0 and hop limit 64 (all three masked by the ICRC);
         * UDP checksum 0. Laid out for {@code n} bytes of UDP payload, which go to the writer's
         * {@link PacketWriter#udpPayloadOffset()}.
         *
         * @return where the frame ends
         */
        private int headersFor(InetSocketAddress sender, int n) {
            headers.ethernet(rx, 0, destinationMac, 0);
            byte[] source = sender.getAddress().getAddress();
            if (v6) {
                headers.ipv6(0, 0, UdpLink.KERNEL_TTL, source, localAddress);
            } else {
                headers.ipv4(0, 0, true, UdpLink.KERNEL_TTL, source, localAddress);
            }
            return headers.udp(sender.getPort()).headers(n);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            sendFailures.incrementAndGet(); // ICMP errors surface here (port unreachable, EMSGSIZE)
        }
    }
}
