package org.roce4j.wire;

import java.util.Optional;

/**
 * Decodes RoCEv1 frames (Ethernet, EtherType 0x8915, GRH, BTH … ICRC: IBTA Annex A16) and native
 * InfiniBand packets (LRH, optional GRH, BTH … ICRC, VCRC: IBTA Vol. 1 ch. 7-8; a pcap record of
 * LINKTYPE_INFINIBAND starts at the LRH, as ibdump writes it) into {@link IbFrame}s. Never throws on
 * any input: every packet yields an {@link IbDecodeResult} and {@link #counters()} counts why
 * packets were dropped. The transport part (BTH onward) is checked by {@link PacketInfo}, the one
 * copy of those rules. Not thread-safe.
 */
public final class IbDecoder {
    private final PacketInfo transport = new PacketInfo();
    private final IbCrcCalculator crc = new IbCrcCalculator();
    private final DecodeCounters counters;

    private byte[] buffer;
    private DropReason reason;
    private long value;

    public IbDecoder() {
        this(new DecodeCounters());
    }

    /** A decoder that counts into {@code counters}, e.g. the ones a {@link RoceDecoder} counts into. */
    public IbDecoder(DecodeCounters counters) {
        this.counters = counters;
    }

    public DecodeCounters counters() {
        return counters;
    }

    /** Decodes an Ethernet frame as RoCEv1 (an 802.1Q tag is skipped). */
    public IbDecodeResult decodeRoceV1(byte[] frame) {
        buffer = frame;
        int length = frame.length;
        if (length < EthernetHeader.LENGTH) {
            return drop(DropReason.TRUNCATED_ETHERNET, length);
        }
        int vlanTci = -1;
        int grh = EthernetHeader.LENGTH;
        int etherType = Bytes.u16(frame, 12);
        if (etherType == EthernetHeader.ETHERTYPE_VLAN) {
            if (length < EthernetHeader.LENGTH + EthernetHeader.VLAN_TAG_LENGTH) {
                return drop(DropReason.TRUNCATED_ETHERNET, length);
            }
            vlanTci = Bytes.u16(frame, 14);
            etherType = Bytes.u16(frame, 16);
            grh += EthernetHeader.VLAN_TAG_LENGTH;
        }
        if (etherType != EthernetHeader.ETHERTYPE_ROCE_V1) {
            return drop(DropReason.NOT_ROCE_V1, etherType);
        }
        // Bytes after the GRH's PayLen are Ethernet padding, as after an IP datagram.
        int end = checkGrh(grh, length, false);
        if (end < 0 || !parseTransport(grh + Grh.LENGTH, end)) {
            return dropped();
        }
        int icrcOffset = transport.icrcOffset();
        boolean icrcValid = crc.roceV1Icrc(frame, grh, icrcOffset) == IcrcCalculator.read(frame, icrcOffset);
        EthernetHeader ethernet = new EthernetHeader(MacAddress.decode(frame, 0), MacAddress.decode(frame, 6),
                vlanTci < 0 ? Optional.empty() : Optional.of(VlanTag.ofTci(vlanTci)), etherType);
        IbFrame parsed = IbFrame.roceV1(ethernet, Grh.decode(frame, grh), RoceDecoder.toPacket(transport));
        return verdict(parsed, icrcValid, VcrcStatus.ABSENT, grh, icrcOffset);
    }

    /** Decodes an InfiniBand packet that starts with its LRH and ends with its VCRC. */
    public IbDecodeResult decodeInfiniband(byte[] packet) {
        buffer = packet;
        int length = packet.length;
        if (length < Lrh.LENGTH) {
            return drop(DropReason.TRUNCATED_LRH, length);
        }
        if (Lrh.linkVersion(packet, 0) != 0) {
            return drop(DropReason.BAD_LINK_VERSION, Lrh.linkVersion(packet, 0));
        }
        int lnh = Lrh.linkNextHeader(packet, 0);
        if (lnh != Lrh.LNH_IBA_LOCAL && lnh != Lrh.LNH_IBA_GLOBAL) {
            return drop(DropReason.NOT_IBA_TRANSPORT, lnh);
        }
        // IBTA 7.7.8: PktLen counts LRH through ICRC; the 2-byte VCRC ends the packet.
        int end = Lrh.packetBytes(packet, 0);
        if (end + IbCrcCalculator.VCRC_LENGTH != length || end < Lrh.LENGTH) {
            return drop(DropReason.BAD_PACKET_LENGTH, end);
        }
        boolean global = lnh == Lrh.LNH_IBA_GLOBAL;
        int bth = Lrh.LENGTH;
        if (global) {
            if (checkGrh(Lrh.LENGTH, end, true) < 0) {
                return dropped();
            }
            bth += Grh.LENGTH;
        }
        if (!parseTransport(bth, end)) {
            return dropped();
        }
        int icrcOffset = transport.icrcOffset();
        boolean icrcValid = crc.infinibandIcrc(packet, 0, icrcOffset) == IcrcCalculator.read(packet, icrcOffset);
        boolean vcrcValid = IbCrcCalculator.vcrc(packet, 0, end) == IbCrcCalculator.readVcrc(packet, end);
        IbFrame parsed = IbFrame.infiniband(Lrh.decode(packet, 0),
                global ? Optional.of(Grh.decode(packet, Lrh.LENGTH)) : Optional.empty(), RoceDecoder.toPacket(transport));
        return verdict(parsed, icrcValid, vcrcValid ? VcrcStatus.VALID : VcrcStatus.INVALID, 0, icrcOffset);
    }

    /**
     * Checks the GRH at {@code grh}: IPVer 6, NxtHdr BTH, PayLen inside {@code end} (equal to it
     * when {@code exact}); returns where the packet ends (its ICRC's end), or -1 having set the drop.
     */
    private int checkGrh(int grh, int end, boolean exact) {
        if (end - grh < Grh.LENGTH) {
            return fail(DropReason.TRUNCATED_GRH, end - grh);
        }
        if (Grh.version(buffer, grh) != Grh.VERSION) {
            return fail(DropReason.BAD_GRH_VERSION, Grh.version(buffer, grh));
        }
        if (Grh.nextHeader(buffer, grh) != Grh.NEXT_HEADER_BTH) {
            return fail(DropReason.NOT_BTH_NEXT_HEADER, Grh.nextHeader(buffer, grh));
        }
        int payload = Grh.payloadLength(buffer, grh);
        int available = end - grh - Grh.LENGTH;
        if (exact ? payload != available : payload > available) {
            return fail(DropReason.BAD_GRH_LENGTH, payload);
        }
        return grh + Grh.LENGTH + payload;
    }

    private boolean parseTransport(int bth, int end) {
        if (transport.parseUdpPayload(buffer, bth, end - bth)) {
            return true;
        }
        fail(transport.dropReason(), transport.dropValue());
        return false;
    }

    private IbDecodeResult verdict(IbFrame parsed, boolean icrcValid, VcrcStatus vcrc, int icrcStart, int icrcOffset) {
        IcrcStatus icrc = icrcValid ? IcrcStatus.VALID : IcrcStatus.INVALID;
        // The link layer checks the VCRC before the transport sees the packet (IBTA 7.8.2), so it is named first.
        DropReason failed = vcrc == VcrcStatus.INVALID ? DropReason.BAD_VCRC : icrcValid ? null : DropReason.BAD_ICRC;
        if (failed == null) {
            counters.accept();
            return new IbDecodeResult.Decoded(parsed, IcrcCalculator.read(buffer, icrcOffset), vcrc);
        }
        counters.drop(failed);
        String detail = failed.description() + (failed == DropReason.BAD_VCRC
                ? " (VCRC 0x%04x on the wire, 0x%04x computed)".formatted(IbCrcCalculator.readVcrc(buffer, icrcOffset + 4),
                        IbCrcCalculator.vcrc(buffer, icrcStart, icrcOffset + 4))
                : " (ICRC 0x%08x on the wire)".formatted(IcrcCalculator.read(buffer, icrcOffset)));
        return new IbDecodeResult.Dropped(failed, detail, parsed, icrc, vcrc);
    }

    private int fail(DropReason dropReason, long dropValue) {
        reason = dropReason;
        value = dropValue;
        return -1;
    }

    private IbDecodeResult drop(DropReason dropReason, long dropValue) {
        fail(dropReason, dropValue);
        return dropped();
    }

    private IbDecodeResult dropped() {
        counters.drop(reason);
        String detail = switch (reason) {
            case NOT_ROCE_V1 -> "EtherType 0x%04x".formatted(value);
            case NOT_BTH_NEXT_HEADER -> "next header 0x%02x".formatted(value);
            case UNKNOWN_OPCODE -> "opcode 0x%02x".formatted(value);
            default -> "value " + value;
        };
        return new IbDecodeResult.Dropped(reason, reason.description() + " (" + detail + ")", null,
                IcrcStatus.NOT_CHECKED, VcrcStatus.ABSENT);
    }
}
