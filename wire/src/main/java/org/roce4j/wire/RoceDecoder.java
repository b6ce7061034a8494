package org.roce4j.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decodes Ethernet frames into {@link RoceFrame} records. Never throws on any input: every frame
 * yields a {@link DecodeResult}, and {@link #counters()} records why frames were dropped.
 * Validation is {@link PacketInfo}'s; this class only builds records. Not thread-safe.
 */
public final class RoceDecoder {
    private final PacketInfo info = new PacketInfo();
    private final DecodeCounters counters;

    public RoceDecoder() {
        this(new DecodeCounters());
    }

    /** A decoder that counts into {@code counters}, which an {@link IbDecoder} may share. */
    public RoceDecoder(DecodeCounters counters) {
        this.counters = counters;
    }

    public DecodeResult decode(byte[] frame) {
        return decode(frame, 0, frame.length);
    }

    public DecodeResult decode(byte[] frame, int offset, int length) {
        boolean ok = info.parseFrame(frame, offset, length);
        if (ok) {
            counters.accept();
            return new DecodeResult.Decoded(toRecord(info), info.icrc());
        }
        DropReason reason = info.dropReason();
        counters.drop(reason);
        RoceFrame parsed = reason == DropReason.BAD_ICRC ? toRecord(info) : null;
        return new DecodeResult.Dropped(reason, info.dropDetail(), parsed);
    }

    public DecodeCounters counters() {
        return counters;
    }

    /** Builds the records for a successfully parsed (or ICRC-failed) frame. */
    static RoceFrame toRecord(PacketInfo info) {
        byte[] b = info.buffer();
        int off = info.frameOffset();
        Optional<VlanTag> vlan = info.vlanTci() < 0 ? Optional.empty() : Optional.of(VlanTag.ofTci(info.vlanTci()));
        int etherType = info.ipVersion() == 4 ? EthernetHeader.ETHERTYPE_IPV4 : EthernetHeader.ETHERTYPE_IPV6;
        EthernetHeader ethernet = new EthernetHeader(MacAddress.decode(b, off), MacAddress.decode(b, off + 6), vlan, etherType);
        IpHeader ip = info.ipVersion() == 4 ? Ipv4Header.decode(b, info.ipOffset()) : Ipv6Header.decode(b, info.ipOffset());
        UdpHeader udp = UdpHeader.decode(b, info.udpOffset());
        return new RoceFrame(ethernet, ip, udp, toPacket(info));
    }

    /** Builds the transport packet record from a parse of a frame or of a UDP payload. */
    public static RocePacket toPacket(PacketInfo info) {
        byte[] b = info.buffer();
        Opcode opcode = info.opcode();
        List<ExtensionHeader> headers = new ArrayList<>(opcode.headers().size() - 1);
        for (HeaderType type : opcode.headers()) {
            if (type != HeaderType.BTH) {
                headers.add(ExtensionHeader.decode(type, b, info.offsetOf(type)));
            }
        }
        byte[] payload = new byte[info.payloadLength()];
        System.arraycopy(b, info.payloadOffset(), payload, 0, payload.length);
        return new RocePacket(Bth.decode(b, info.bthOffset()), headers, payload);
    }
}
