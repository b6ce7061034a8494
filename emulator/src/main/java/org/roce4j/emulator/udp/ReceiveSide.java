package org.roce4j.emulator.udp;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import org.roce4j.emulator.DatagramReceiver;
import org.roce4j.emulator.fabric.Clock;
import org.roce4j.wire.IcrcStatus;
import org.roce4j.wire.MacAddress;

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

    /** Datagrams from now on go to {@code datagramReceiver} (the RNIC). */
    void attached(DatagramReceiver datagramReceiver) {
        this.receiver = datagramReceiver;
    }

    /** {@return a new handler for the socket bound to {@code local}} */
    ChannelHandler handlerFor(InetAddress local) {
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

    /** One per socket, run on its event loop thread: the buffer and ICRC state are its own. */
    private final class Receiver extends SimpleChannelInboundHandler<DatagramPacket> {
        private final InetAddress local;
        private final byte[] rx = new byte[UdpLink.ETHERNET + 40 + 8 + UdpLink.MAX_DATAGRAM];
        private final ReceivedIcrc icrc = new ReceivedIcrc();

        Receiver(InetAddress local) {
            this.local = local;
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
            InetSocketAddress sender = packet.sender();
            boolean v6 = local instanceof Inet6Address;
            int ip = UdpLink.ETHERNET;
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
                tap.write(clock.epochNanos(), rx, 0, bth + n);
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
            long mac = ourMac;
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
                b[ip + 7] = (byte) UdpLink.KERNEL_TTL;
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
                b[ip + 8] = (byte) UdpLink.KERNEL_TTL;
                b[ip + 9] = 17;
                System.arraycopy(src, src.length - 4, b, ip + 12, 4);
                System.arraycopy(dst, 0, b, ip + 16, 4);
                Ipv4Checksum.fill(b, ip);
            }
            int sourcePort = sender.getPort();
            b[udp] = (byte) (sourcePort >>> 8);
            b[udp + 1] = (byte) sourcePort;
            b[udp + 2] = (byte) (UdpLink.ROCE_PORT >>> 8);
            b[udp + 3] = (byte) UdpLink.ROCE_PORT;
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
}
