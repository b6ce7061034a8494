package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.unix.IntegerUnixChannelOption;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;

/**
 * Linux rxe sends RoCEv2 over IPv6 with a UDP checksum of 0; Linux drops such datagrams at a
 * socket that has not set UDP_NO_CHECK6_RX. Found against rxe: over GID 0 (fe80::) nothing rxe
 * sent reached roce4j, and both sides retried until RETRY_EXC_ERR.
 */
@Timeout(60)
class ZeroUdpChecksumIpv6Test {
    /** linux/udp.h UDP_NO_CHECK6_TX: the sending socket leaves the checksum 0, as rxe's does. */
    private static final IntegerUnixChannelOption NO_CHECK6_TX = new IntegerUnixChannelOption("UDP_NO_CHECK6_TX", 17, 101);

    @Test
    @DisplayName("an IPv6 RoCEv2 datagram with UDP checksum 0, as Linux rxe sends them, reaches the RNIC and is verified by its ICRC")
    void zeroChecksumIpv6DatagramIsReceived() throws Exception {
        RequiredInCi.require(Epoll.isAvailable(), "Linux epoll (Netty's native transport), to send a zero-checksum datagram");
        UdpSide a;
        try {
            a = new UdpSide("rxe11", "::1", UdpLinkConfig.DEFAULT);
        } catch (IOException e) {
            RequiredInCi.require(false, "IPv6 loopback (::1) for the UDP link: " + e.getMessage());
            return;
        }
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try (a; RawPeer builder = new RawPeer("::1")) {
            Qp qp = a.createQp(QpType.RC, 64);
            Channel sender = new Bootstrap().group(group)
                    .channelFactory(() -> new EpollDatagramChannel(SocketProtocolFamily.INET6))
                    .option(NO_CHECK6_TX, 1)
                    .handler(new ChannelInboundHandlerAdapter())
                    .bind(new InetSocketAddress(builder.local, 0)).sync().channel();
            // The ICRC covers the UDP source port: built for the port the zero-checksum socket sends from.
            int port = ((InetSocketAddress) sender.localAddress()).getPort();
            byte[] datagram = builder.datagram(RawPeer.rcSend(qp.qpNum(), 0, new byte[16]), a.rnic.address(), 0, port);
            long received = a.rnic.linkCounters().datagramsReceived();
            long verified = a.rnic.linkCounters().icrcValid();
            sender.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(datagram),
                    new InetSocketAddress(a.rnic.address(), 4791))).sync();
            // The link counts a datagram as received before it verifies its ICRC: wait for the verification.
            UdpLinkTest.eventually(() -> a.rnic.linkCounters().icrcValid() == verified + 1,
                    "zero-checksum datagram received and its ICRC verified");
            assertThat(a.rnic.linkCounters().datagramsReceived()).isEqualTo(received + 1);
            sender.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }
}
