package org.roce4j.tools;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.roce4j.wire.Bth;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.Deth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.ExtensionHeader;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.IpHeader;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.Ipv6Header;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.UdpHeader;

/**
 * Rewrites captured RoCEv2 frames for {@code roce4j replay}: parses a frame once with wire's
 * {@link RoceDecoder}, applies the {@link RewriteRules} to the parsed headers and writes the frame again
 * with wire's {@link FrameEncoder}, which derives the IP and UDP lengths, the IPv4 header checksum and the
 * ICRC (RoCEv2 A17.4.2) from what the frame now says. The UDP checksum (IPv4) is computed again when the
 * captured frame had one and stays 0 when it had none (Linux rxe sends 0: rxe_net.c prepare_udp_hdr); over
 * IPv6 the encoder always computes it (RFC 8200 §8.1).
 *
 * <p>A captured frame whose ICRC was bad is sent with a good one, unless {@code keepBadIcrc}: then the new
 * ICRC is spoiled by the same bits the captured one was off by, so the receiver drops it as it dropped the
 * original (rxe_recv.c rxe_rcv → rxe_icrc_check). Not thread-safe.
 */
final class FrameRewriter {
    private final RewriteRules rules;
    private final boolean keepBadIcrc;
    private final RoceDecoder decoder = new RoceDecoder();
    private final FrameEncoder encoder = new FrameEncoder();

    /** What became of one captured frame. */
    sealed interface Outcome {
        /** The frame to send; {@code badIcrc} when its ICRC is deliberately wrong. */
        record Rewritten(byte[] frame, boolean badIcrc) implements Outcome {}

        /** Not a RoCEv2 frame wire can parse (another protocol, or malformed): nothing to rewrite, not sent. */
        record NotRewritable(String why) implements Outcome {}
    }

    FrameRewriter(RewriteRules rules, boolean keepBadIcrc) {
        this.rules = rules;
        this.keepBadIcrc = keepBadIcrc;
    }

    /**
     * Rewrites one captured Ethernet frame.
     *
     * @throws IllegalArgumentException if a rule cannot apply to the frame (an IPv4 address for an IPv6 frame)
     */
    Outcome rewrite(byte[] captured) {
        RoceFrame original;
        boolean icrcWasBad;
        switch (decoder.decode(captured)) {
            case DecodeResult.Decoded decoded -> {
                original = decoded.frame();
                icrcWasBad = false;
            }
            case DecodeResult.Dropped dropped when dropped.parsed().isPresent() -> { // only a bad ICRC parses
                original = dropped.parsedFrame();
                icrcWasBad = true;
            }
            case DecodeResult.Dropped dropped -> {
                return new Outcome.NotRewritable(dropped.reason() + ": " + dropped.detail());
            }
        }
        RoceFrame changed = new RoceFrame(ethernet(original.ethernet()), ip(original.ip()),
                original.udp().withChecksum(0), packet(original.packet()));
        byte[] frame = encoder.encode(changed);
        int ipOffset = changed.ethernet().length();
        if (changed.ip().version() == 4 && original.udp().checksum() != 0) {
            UdpHeader.fillChecksum(frame, ipOffset); // the ICRC masks it (A17.4.2): computed after it, it stays valid
        }
        boolean badIcrc = icrcWasBad && keepBadIcrc;
        if (badIcrc) {
            spoilIcrcAsCaptured(captured, original, frame);
        }
        return new Outcome.Rewritten(frame, badIcrc);
    }

    /** XORs into {@code frame}'s (good) ICRC the bits by which the captured ICRC differs from the good one. */
    private void spoilIcrcAsCaptured(byte[] captured, RoceFrame original, byte[] frame) {
        byte[] good = encoder.encode(original);
        int capturedIcrc = good.length - IcrcCalculator.LENGTH;
        int icrc = frame.length - IcrcCalculator.LENGTH;
        boolean differs = false;
        for (int i = 0; i < IcrcCalculator.LENGTH; i++) {
            int error = (captured[capturedIcrc + i] ^ good[capturedIcrc + i]) & 0xFF;
            differs |= error != 0;
            frame[icrc + i] ^= (byte) error;
        }
        if (!differs) { // the ICRC was right and something it covers was not written back as captured
            frame[icrc] ^= (byte) 0xFF;
        }
    }

    private EthernetHeader ethernet(EthernetHeader header) {
        return new EthernetHeader(rules.destinationMac().orElse(header.destination()),
                rules.sourceMac().orElse(header.source()), header.vlan(), header.etherType());
    }

    private IpHeader ip(IpHeader header) {
        InetAddress source = rules.sourceIp().orElse(header.source());
        InetAddress destination = rules.destinationIp().orElse(header.destination());
        return switch (header) {
            case Ipv4Header v4 -> new Ipv4Header(v4.trafficClass(), v4.identification(), v4.dontFragment(), v4.ttl(),
                    inet4(source), inet4(destination));
            case Ipv6Header v6 -> new Ipv6Header(v6.trafficClass(), v6.flowLabel(), v6.hopLimit(),
                    inet6(source), inet6(destination));
        };
    }

    private RocePacket packet(RocePacket packet) {
        Bth bth = packet.bth();
        Bth rewritten = new Bth(bth.opcode(), bth.solicitedEvent(), bth.migReq(), bth.padCount(), bth.transportVersion(),
                bth.pkey(), bth.fecn(), bth.becn(), rules.qpn(bth.destQp()), bth.ackReq(), rules.psn(bth.psn()));
        List<ExtensionHeader> headers = new ArrayList<>(packet.headers().size());
        for (ExtensionHeader header : packet.headers()) {
            headers.add(header instanceof Deth deth ? new Deth(deth.qkey(), rules.qpn(deth.sourceQp())) : header);
        }
        return new RocePacket(rewritten, headers, packet.payload());
    }

    private static Inet4Address inet4(InetAddress address) {
        if (address instanceof Inet4Address v4) {
            return v4;
        }
        throw new IllegalArgumentException(address.getHostAddress() + " is not an IPv4 address, and the frame is IPv4");
    }

    private static Inet6Address inet6(InetAddress address) {
        if (address instanceof Inet6Address v6) {
            return v6;
        }
        throw new IllegalArgumentException(address.getHostAddress() + " is not an IPv6 address, and the frame is IPv6");
    }
}
