package org.roce4j.wire;

import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** QuickTheories generators for every wire type, over the full range of each field. */
final class WireGenerators {
    private WireGenerators() {}

    static Gen<Integer> u24() {
        return integers().between(0, 0xFFFFFF);
    }

    static Gen<Integer> ints() {
        return integers().all();
    }

    static Gen<Boolean> bools() {
        return booleans().all();
    }

    static Gen<byte[]> bytes(int maxLength) {
        return Generate.byteArrays(integers().between(0, maxLength), Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0));
    }

    static Gen<Opcode> opcodes() {
        return Generate.enumValues(Opcode.class);
    }

    static Gen<ExtensionHeader> header(HeaderType type) {
        Gen<Long> longs = longs().all();
        return switch (type) {
            case RDETH -> u24().map(Rdeth::new);
            case DETH -> ints().zip(u24(), Deth::new);
            case XRCETH -> u24().map(Xrceth::new);
            case FETH -> integers().between(0, 3).zip(integers().between(0, 15), Feth::new);
            case RETH -> longs.zip(ints(), ints(), Reth::new);
            case ATOMIC_ETH -> longs.zip(ints(), longs, longs, AtomicEth::new);
            case AETH -> integers().between(0, 0xFF).zip(u24(), Aeth::new);
            case ATOMIC_ACK_ETH -> longs.map(AtomicAckEth::new);
            case IMM_DT -> ints().map(ImmDt::new);
            case IETH -> ints().map(Ieth::new);
            case CNP_RESERVED -> longs.zip(longs, CnpReserved::new);
            case BTH -> throw new IllegalArgumentException("BTH is not an extension header");
        };
    }

    static Gen<Bth> bth(Opcode opcode) {
        return in -> new Bth(opcode, bools().generate(in), bools().generate(in), 0, 0,
                integers().between(0, 0xFFFF).generate(in), bools().generate(in), bools().generate(in),
                u24().generate(in), bools().generate(in), u24().generate(in));
    }

    static Gen<RocePacket> packets(int maxPayload) {
        return opcodes().flatMap(opcode -> packets(opcode, maxPayload));
    }

    static Gen<RocePacket> packets(Opcode opcode, int maxPayload) {
        return in -> {
            List<ExtensionHeader> headers = new ArrayList<>();
            for (HeaderType type : opcode.headers()) {
                if (type != HeaderType.BTH) {
                    headers.add(header(type).generate(in));
                }
            }
            byte[] payload = opcode.carriesPayload() ? bytes(maxPayload).generate(in) : new byte[0];
            return RocePacket.of(bth(opcode).generate(in), headers, payload);
        };
    }

    static Gen<MacAddress> macs() {
        return longs().between(0, 0xFFFF_FFFF_FFFFL).map(MacAddress::new);
    }

    static Gen<Optional<VlanTag>> vlans() {
        Gen<VlanTag> tags = in -> new VlanTag(integers().between(0, 7).generate(in), bools().generate(in),
                integers().between(0, 4095).generate(in));
        return tags.toOptionals(50);
    }

    static Gen<Inet4Address> ipv4Addresses() {
        return ints().map(v -> (Inet4Address) address(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) (int) v}));
    }

    static Gen<Inet6Address> ipv6Addresses() {
        return in -> {
            byte[] raw = new byte[16];
            for (int i = 0; i < 16; i += 4) {
                int v = ints().generate(in);
                raw[i] = (byte) (v >>> 24);
                raw[i + 1] = (byte) (v >>> 16);
                raw[i + 2] = (byte) (v >>> 8);
                raw[i + 3] = (byte) v;
            }
            try {
                return Inet6Address.getByAddress(null, raw, null);
            } catch (UnknownHostException e) {
                throw new AssertionError(e);
            }
        };
    }

    static Gen<IpHeader> ipv4Headers() {
        return in -> new Ipv4Header(integers().between(0, 0xFF).generate(in), integers().between(0, 0xFFFF).generate(in),
                bools().generate(in), integers().between(0, 0xFF).generate(in),
                ipv4Addresses().generate(in), ipv4Addresses().generate(in));
    }

    static Gen<IpHeader> ipv6Headers() {
        return in -> new Ipv6Header(integers().between(0, 0xFF).generate(in), integers().between(0, 0xFFFFF).generate(in),
                integers().between(0, 0xFF).generate(in), ipv6Addresses().generate(in), ipv6Addresses().generate(in));
    }

    /** Whole frames over IPv4 or IPv6; the UDP checksum is 0 (the encoder fills it in for IPv6). */
    static Gen<RoceFrame> frames(Gen<IpHeader> ipHeaders, int maxPayload) {
        return frames(ipHeaders, packets(maxPayload));
    }

    /** Whole frames over IPv4 or IPv6 carrying {@code packets}. */
    static Gen<RoceFrame> frames(Gen<IpHeader> ipHeaders, Gen<RocePacket> packets) {
        return in -> {
            IpHeader ip = ipHeaders.generate(in);
            int etherType = ip.version() == 4 ? EthernetHeader.ETHERTYPE_IPV4 : EthernetHeader.ETHERTYPE_IPV6;
            EthernetHeader ethernet = new EthernetHeader(macs().generate(in), macs().generate(in), vlans().generate(in), etherType);
            UdpHeader udp = UdpHeader.toRocePort(integers().between(0, 0xFFFF).generate(in));
            return new RoceFrame(ethernet, ip, udp, packets.generate(in));
        };
    }

    static Gen<RoceFrame> frames(int maxPayload) {
        return Generate.oneOf(frames(ipv4Headers(), maxPayload), frames(ipv6Headers(), maxPayload));
    }

    private static InetAddress address(byte[] raw) {
        try {
            return InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
