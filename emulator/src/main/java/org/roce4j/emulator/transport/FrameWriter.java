package org.roce4j.emulator.transport;

import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.Opcode;

/**
 * Writes RoCEv2 frames straight into the node's transmit buffer, as rxe's {@code rxe_prepare} and
 * {@code prepare4}/{@code prepare6} build an skb: Ethernet, then IPv4 (DF set, Identification from
 * a per-node counter, TOS and TTL from the address vector) or IPv6, then UDP to port 4791 from the
 * QP's source port with checksum 0 over IPv4 (as rxe) and a real one over IPv6 (RFC 8200 §8.1),
 * then the transport headers the caller writes, then the ICRC. Allocates nothing.
 */
public final class FrameWriter {
    static final int ETHERNET_LENGTH = 14;
    static final int IPV4_LENGTH = 20;
    static final int IPV6_LENGTH = 40;
    static final int UDP_LENGTH = 8;
    static final int ROCE_PORT = 4791;
    /** rxe: RXE_ROCE_V2_SPORT, the base of the dynamic port range the source ports hash into. */
    static final int SOURCE_PORT_BASE = 0xC000;
    private static final int GOLDEN_RATIO_32 = 0x61C88647;

    private final IcrcCalculator icrc = new IcrcCalculator();
    private final long sourceMac;
    /** The UDP source port of every frame, or -1 for the QP's (rxe's per-QP flow). */
    private final int fixedSourcePort;
    /** Identification 0 on every IPv4 frame (what Linux sends for a DF datagram of an unconnected socket). */
    private final boolean zeroIdentification;
    private int ipv4Identification;

    public FrameWriter(long sourceMac) {
        this(sourceMac, -1, false);
    }

    public FrameWriter(long sourceMac, int fixedSourcePort, boolean zeroIdentification) {
        this.sourceMac = sourceMac;
        this.fixedSourcePort = fixedSourcePort;
        this.zeroIdentification = zeroIdentification;
    }

    /** rxe_qp.c: {@code RXE_ROCE_V2_SPORT + (hash_32_generic(qpn, 14) & 0x3fff)}, one UDP flow per QP. */
    public static int sourcePortOf(int qpn) {
        return SOURCE_PORT_BASE + (((qpn * GOLDEN_RATIO_32) >>> (32 - 14)) & 0x3FFF);
    }

    /** Bytes a frame takes for a transport packet of {@code transportLength} bytes (BTH to pad) plus ICRC. */
    static int frameLength(boolean ipv6, int transportLength) {
        return ETHERNET_LENGTH + (ipv6 ? IPV6_LENGTH : IPV4_LENGTH) + UDP_LENGTH + transportLength
                + IcrcCalculator.LENGTH;
    }

    /**
     * Writes Ethernet, IP and UDP headers for a transport packet of {@code transportLength} bytes
     * (BTH through pad).
     *
     * @return the offset of the BTH in {@code buffer}
     */
    int writeNetworkHeaders(byte[] buffer, NetworkPath path, long destinationMac, int sourcePort, int transportLength) {
        NetworkOrder.mac(buffer, 0, destinationMac);
        NetworkOrder.mac(buffer, 6, sourceMac);
        int udpLength = UDP_LENGTH + transportLength + IcrcCalculator.LENGTH;
        int ip = ETHERNET_LENGTH;
        int udp;
        if (path.ipv6) {
            NetworkOrder.u16(buffer, 12, 0x86DD);
            NetworkOrder.i32(buffer, ip, 6 << 28 | path.trafficClass << 20 | path.flowLabel);
            NetworkOrder.u16(buffer, ip + 4, udpLength);
            NetworkOrder.u8(buffer, ip + 6, 17);
            NetworkOrder.u8(buffer, ip + 7, path.hopLimit);
            System.arraycopy(path.sourceIp, 0, buffer, ip + 8, 16);
            System.arraycopy(path.destinationIp, 0, buffer, ip + 24, 16);
            udp = ip + IPV6_LENGTH;
        } else {
            NetworkOrder.u16(buffer, 12, 0x0800);
            NetworkOrder.u8(buffer, ip, 0x45);
            NetworkOrder.u8(buffer, ip + 1, path.trafficClass);
            NetworkOrder.u16(buffer, ip + 2, IPV4_LENGTH + udpLength);
            if (!zeroIdentification) {
                NetworkOrder.u16(buffer, ip + 4, ipv4Identification);
                ipv4Identification = (ipv4Identification + 1) & 0xFFFF;
            } else {
                NetworkOrder.u16(buffer, ip + 4, 0);
            }
            NetworkOrder.u16(buffer, ip + 6, 0x4000); // DF: RoCEv2 packets are never fragmented
            NetworkOrder.u8(buffer, ip + 8, path.hopLimit);
            NetworkOrder.u8(buffer, ip + 9, 17);
            NetworkOrder.u16(buffer, ip + 10, 0);
            System.arraycopy(path.sourceIp, 0, buffer, ip + 12, 4);
            System.arraycopy(path.destinationIp, 0, buffer, ip + 16, 4);
            NetworkOrder.u16(buffer, ip + 10, Ipv4Header.checksum(buffer, ip));
            udp = ip + IPV4_LENGTH;
        }
        NetworkOrder.u16(buffer, udp, fixedSourcePort >= 0 ? fixedSourcePort : sourcePort);
        NetworkOrder.u16(buffer, udp + 2, ROCE_PORT);
        NetworkOrder.u16(buffer, udp + 4, udpLength);
        NetworkOrder.u16(buffer, udp + 6, 0);
        return udp + UDP_LENGTH;
    }

    /**
     * Writes a BTH (IBTA 9.2) at {@code off}: default P_Key, TVer 0, MigReq clear as rxe sends it,
     * the pad count for {@code payloadLength}.
     */
    static void writeBth(byte[] b, int off, Opcode opcode, boolean solicited, int payloadLength, int destQp,
                         boolean ackReq, int psn) {
        NetworkOrder.u8(b, off, opcode.code());
        NetworkOrder.u8(b, off + 1, (solicited ? 0x80 : 0) | ((-payloadLength & 3) << 4));
        NetworkOrder.u16(b, off + 2, 0xFFFF);
        NetworkOrder.u8(b, off + 4, 0);
        NetworkOrder.u24(b, off + 5, destQp);
        NetworkOrder.u8(b, off + 8, ackReq ? 0x80 : 0);
        NetworkOrder.u24(b, off + 9, psn);
    }

    /** Transport bytes of a packet: headers, payload and pad to a 4-byte boundary (IBTA 9.2). */
    static int transportLength(Opcode opcode, int payloadLength) {
        return opcode.headersLength() + payloadLength + (-payloadLength & 3);
    }

    /**
     * Zeroes the pad, fills in the UDP checksum for IPv6 and the ICRC.
     *
     * @return the frame's length
     */
    int finish(byte[] buffer, boolean ipv6, int payloadEnd, int payloadLength) {
        int pad = -payloadLength & 3;
        for (int i = 0; i < pad; i++) {
            buffer[payloadEnd + i] = 0;
        }
        int icrcOffset = payloadEnd + pad;
        icrc.fill(buffer, ETHERNET_LENGTH, icrcOffset);
        int end = icrcOffset + IcrcCalculator.LENGTH;
        if (ipv6) {
            // The ICRC masks the UDP checksum, so filling it in afterwards leaves the ICRC valid.
            int udp = ETHERNET_LENGTH + IPV6_LENGTH;
            NetworkOrder.u16(buffer, udp + 6, FrameEncoder.udpChecksumIpv6(buffer, ETHERNET_LENGTH, end - udp));
        }
        return end;
    }
}
