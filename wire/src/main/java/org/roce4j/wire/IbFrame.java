package org.roce4j.wire;

import java.util.Optional;

/**
 * A RoCEv1 frame (Ethernet with EtherType 0x8915, GRH, transport, ICRC: IBTA Annex A16) or a
 * native InfiniBand packet (LRH, GRH when routed globally, transport, ICRC, VCRC: IBTA Vol. 1
 * ch. 7-8), as {@link IbDecoder} reads them and {@link #encode()} writes them. Lengths, LNH and
 * NxtHdr, the ICRC and the VCRC are derived, not fields. RoCEv2 frames are {@link RoceFrame}s.
 */
public record IbFrame(Encapsulation encapsulation, Optional<EthernetHeader> ethernet, Optional<Lrh> lrh,
                      Optional<Grh> grh, RocePacket packet) {

    public IbFrame {
        if (encapsulation == null || ethernet == null || lrh == null || grh == null || packet == null) {
            throw new IllegalArgumentException("every component is required (Optional.empty() for none)");
        }
        switch (encapsulation) {
            case ROCE_V1 -> {
                if (ethernet.isEmpty() || grh.isEmpty() || lrh.isPresent()
                        || ethernet.get().etherType() != EthernetHeader.ETHERTYPE_ROCE_V1) {
                    throw new IllegalArgumentException("RoCEv1 is Ethernet (EtherType 0x8915) and a GRH, with no LRH");
                }
            }
            case INFINIBAND -> {
                if (lrh.isEmpty() || ethernet.isPresent()) {
                    throw new IllegalArgumentException("an InfiniBand packet starts with an LRH and has no Ethernet header");
                }
            }
            case ROCE_V2 -> throw new IllegalArgumentException("a RoCEv2 frame is a RoceFrame");
        }
    }

    /** A RoCEv1 frame. */
    public static IbFrame roceV1(EthernetHeader ethernet, Grh grh, RocePacket packet) {
        return new IbFrame(Encapsulation.ROCE_V1, Optional.of(ethernet), Optional.empty(), Optional.of(grh), packet);
    }

    /** An InfiniBand packet: LNH "IBA global" with a GRH, "IBA local" without. */
    public static IbFrame infiniband(Lrh lrh, Optional<Grh> grh, RocePacket packet) {
        return new IbFrame(Encapsulation.INFINIBAND, Optional.empty(), Optional.of(lrh), grh, packet);
    }

    /** Bytes from the first header through the ICRC: what PktLen counts for InfiniBand. */
    int lengthThroughIcrc() {
        return ethernet.map(EthernetHeader::length).orElse(0) + (lrh.isPresent() ? Lrh.LENGTH : 0)
                + (grh.isPresent() ? Grh.LENGTH : 0) + packet.length() + IcrcCalculator.LENGTH;
    }

    /** Bytes on the wire: through the ICRC, then the VCRC for InfiniBand (no Ethernet FCS). */
    public int length() {
        return lengthThroughIcrc() + (lrh.isPresent() ? IbCrcCalculator.VCRC_LENGTH : 0);
    }

    /** Encodes to a new array: headers, transport, ICRC and (InfiniBand) VCRC. */
    public byte[] encode() {
        byte[] b = new byte[length()];
        int at = 0;
        if (ethernet.isPresent()) {
            ethernet.get().encode(b, 0);
            at = ethernet.get().length();
        }
        int lrhOffset = at;
        if (lrh.isPresent()) {
            int packetBytes = lengthThroughIcrc();
            if (packetBytes / 4 > Lrh.MAX_PACKET_WORDS) {
                throw new IllegalArgumentException(packetBytes + " bytes do not fit the LRH's 11-bit PktLen");
            }
            lrh.get().encode(b, at, grh.isPresent(), packetBytes);
            at += Lrh.LENGTH;
        }
        int grhOffset = at;
        int icrcOffset = lengthThroughIcrc() - IcrcCalculator.LENGTH;
        if (grh.isPresent()) {
            grh.get().encode(b, at, icrcOffset + IcrcCalculator.LENGTH - at - Grh.LENGTH);
            at += Grh.LENGTH;
        }
        packet.encode(b, at);
        IbCrcCalculator crc = new IbCrcCalculator();
        int icrc = lrh.isPresent() ? crc.infinibandIcrc(b, lrhOffset, icrcOffset) : crc.roceV1Icrc(b, grhOffset, icrcOffset);
        Bytes.i32le(b, icrcOffset, icrc);
        if (lrh.isPresent()) {
            int vcrcOffset = icrcOffset + IcrcCalculator.LENGTH;
            IbCrcCalculator.writeVcrc(b, vcrcOffset, IbCrcCalculator.vcrc(b, lrhOffset, vcrcOffset));
        }
        return b;
    }
}
