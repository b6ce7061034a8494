package org.roce4j.wire;

/**
 * The write side of {@link PacketInfo}: a reusable flyweight that lays out one RoCEv2 frame in a
 * caller's buffer — Ethernet, IPv4 or IPv6, UDP to port 4791, BTH, the extension headers the
 * {@link Opcode} carries (at the offsets the opcode table computes), payload, pad and ICRC — as
 * rxe's {@code rxe_prepare}, {@code prepare4}/{@code prepare6} and {@code rxe_icrc_generate} build
 * an skb. Callers give field values, never offsets. Allocates nothing: one instance per thread.
 *
 * <p>Use: {@link #ethernet}, {@link #ipv4} or {@link #ipv6}, {@link #udp}, {@link #bth} (plus its
 * flag setters), the opcode's extension headers in any order, the payload at
 * {@link #payloadOffset()}, then {@link #finish(int)}. The lengths, the IPv4 header checksum, the
 * BTH pad count, the ICRC and — over IPv6, where a zero UDP checksum is illegal (RFC 8200 §8.1) —
 * the UDP checksum are derived in {@code finish}; the bytes equal {@link FrameEncoder}'s for the
 * same fields.
 *
 * <p>A UDP socket hands over only the UDP payload (BTH to ICRC): a receiver that wants the frame
 * around it copies the payload to {@link #udpPayloadOffset()} after {@code ethernet}, {@code ipv4}
 * or {@code ipv6} and {@code udp}, and calls {@link #headers(int)} for the headers alone.
 */
public final class PacketWriter {
    /** The most bytes Ethernet (with an 802.1Q tag), IP and UDP headers take before the UDP payload. */
    public static final int MAX_HEADERS_LENGTH =
            EthernetHeader.LENGTH + EthernetHeader.VLAN_TAG_LENGTH + Ipv6Header.LENGTH + UdpHeader.LENGTH;

    private final IcrcCalculator icrc = new IcrcCalculator();

    private byte[] buffer;
    private int frameOffset;
    private long destinationMac;
    private long sourceMac;
    private int vlanTci;
    private int ipOffset;
    private int ipVersion;
    private int trafficClass;
    private int identification;
    private boolean dontFragment;
    private int hopLimit;
    private int flowLabel;
    private byte[] sourceIp;
    private byte[] destinationIp;
    private int udpOffset;
    private int sourcePort;
    private int bthOffset;
    private Opcode opcode;
    private boolean solicitedEvent;
    private boolean migReq;
    private int pkey;
    private boolean fecn;
    private boolean becn;
    private int destQp;
    private boolean ackReq;
    private int psn;
    private boolean icrcOffloaded;

    /**
     * Sets whether an RC FLUSH gets the ICRC Linux rxe puts on it (its headers counted twice,
     * {@link IcrcCalculator}) rather than IBTA's; frames of other opcodes are not affected.
     */
    public void flushIcrcAsRxe(boolean asRxe) {
        icrc.flushAsRxe(asRxe);
    }

    /** Starts an untagged frame at {@code offset}; MAC addresses in the low 48 bits. */
    /**
     * Sets whether {@link #finish} leaves the ICRC to someone else, as an RNIC that computes it in
     * hardware leaves it to its transmit engine: the four ICRC bytes are written as zero. Only for a
     * frame that goes over a link which vouches that nobody reads or changes it before a receiver
     * that skips the ICRC check ({@link PacketInfo#parseTrustedFrame}); every other frame needs its ICRC.
     * An RC FLUSH keeps it all the same: Linux rxe and IBTA compute it differently
     * ({@link #flushIcrcAsRxe}), and a receiver of the other kind must still drop it.
     */
    public void offloadIcrc(boolean offloaded) {
        icrcOffloaded = offloaded;
    }

    public PacketWriter ethernet(byte[] buffer, int offset, long destinationMac, long sourceMac) {
        return ethernet(buffer, offset, destinationMac, sourceMac, -1);
    }

    /** Starts a frame with one 802.1Q tag carrying {@code vlanTci}, or untagged when it is -1. */
    public PacketWriter ethernet(byte[] buffer, int offset, long destinationMac, long sourceMac, int vlanTci) {
        this.buffer = buffer;
        this.frameOffset = offset;
        this.destinationMac = destinationMac;
        this.sourceMac = sourceMac;
        this.vlanTci = vlanTci;
        this.ipOffset = offset + EthernetHeader.LENGTH + (vlanTci >= 0 ? EthernetHeader.VLAN_TAG_LENGTH : 0);
        this.opcode = null;
        return this;
    }

    /**
     * IPv4 (RFC 791, no options, protocol UDP). The Identification is covered by the ICRC
     * (A17.4.2), so the caller chooses it. Addresses: the first 4 bytes of each array.
     */
    public PacketWriter ipv4(int tos, int identification, boolean dontFragment, int ttl, byte[] source,
                             byte[] destination) {
        return ip(4, tos, identification, dontFragment, 0, ttl, source, destination);
    }

    /** IPv6 (RFC 8200, next header UDP). Addresses: the first 16 bytes of each array. */
    public PacketWriter ipv6(int trafficClass, int flowLabel, int hopLimit, byte[] source, byte[] destination) {
        return ip(6, trafficClass, 0, false, flowLabel, hopLimit, source, destination);
    }

    private PacketWriter ip(int version, int trafficClass, int identification, boolean dontFragment, int flowLabel,
                            int hopLimit, byte[] source, byte[] destination) {
        this.ipVersion = version;
        this.trafficClass = trafficClass;
        this.identification = identification;
        this.dontFragment = dontFragment;
        this.flowLabel = flowLabel;
        this.hopLimit = hopLimit;
        this.sourceIp = source;
        this.destinationIp = destination;
        this.udpOffset = ipOffset + (version == 4 ? Ipv4Header.LENGTH : Ipv6Header.LENGTH);
        this.bthOffset = udpOffset + UdpHeader.LENGTH;
        return this;
    }

    /** UDP from {@code sourcePort} to the RoCEv2 port (A17.4.1); checksum 0 over IPv4, as rxe sends. */
    public PacketWriter udp(int sourcePort) {
        this.sourcePort = sourcePort;
        return this;
    }

    /**
     * BTH (IBTA §9.2) for {@code opcode}: every flag clear, TVer 0, the default P_Key — what rxe
     * sends unless told otherwise; the pad count follows the payload in {@link #finish}.
     */
    public PacketWriter bth(Opcode opcode, int destQp, int psn) {
        this.opcode = opcode;
        this.destQp = destQp;
        this.psn = psn;
        this.solicitedEvent = false;
        this.migReq = false;
        this.pkey = Bth.DEFAULT_PKEY;
        this.fecn = false;
        this.becn = false;
        this.ackReq = false;
        return this;
    }

    public PacketWriter solicitedEvent(boolean value) {
        solicitedEvent = value;
        return this;
    }

    public PacketWriter migReq(boolean value) {
        migReq = value;
        return this;
    }

    public PacketWriter pkey(int value) {
        pkey = value;
        return this;
    }

    /** FECN and BECN (RoCEv2 A17.9: explicit congestion notification). */
    public PacketWriter congestion(boolean fecnValue, boolean becnValue) {
        fecn = fecnValue;
        becn = becnValue;
        return this;
    }

    public PacketWriter ackReq(boolean value) {
        ackReq = value;
        return this;
    }

    public PacketWriter reth(long virtualAddress, int rkey, int dmaLength) {
        Reth.write(buffer, at(HeaderType.RETH), virtualAddress, rkey, dmaLength);
        return this;
    }

    /** FETH (FLUSH): the selectivity level (0-3) and the placement type (0-15), as rxe_hdr.h feth_init masks them. */
    public PacketWriter feth(int selectivityLevel, int placementType) {
        Feth.write(buffer, at(HeaderType.FETH), selectivityLevel, placementType);
        return this;
    }

    public PacketWriter deth(int qkey, int sourceQp) {
        Deth.write(buffer, at(HeaderType.DETH), qkey, sourceQp);
        return this;
    }

    /** AETH with a syndrome byte made by {@link AethSyndrome} ({@code ack}, {@code nak}, {@code rnrNak}). */
    public PacketWriter aeth(int syndrome, int msn) {
        Aeth.write(buffer, at(HeaderType.AETH), syndrome, msn);
        return this;
    }

    public PacketWriter atomicEth(long virtualAddress, int rkey, long swapOrAddData, long compareData) {
        AtomicEth.write(buffer, at(HeaderType.ATOMIC_ETH), virtualAddress, rkey, swapOrAddData, compareData);
        return this;
    }

    public PacketWriter atomicAckEth(long originalData) {
        AtomicAckEth.write(buffer, at(HeaderType.ATOMIC_ACK_ETH), originalData);
        return this;
    }

    public PacketWriter immediate(int immediateData) {
        ImmDt.write(buffer, at(HeaderType.IMM_DT), immediateData);
        return this;
    }

    public PacketWriter invalidate(int rkey) {
        Ieth.write(buffer, at(HeaderType.IETH), rkey);
        return this;
    }

    /** Any extension header as a record (tools and tests; the typed setters do not allocate). */
    public PacketWriter header(ExtensionHeader header) {
        header.encode(buffer, at(header.type()));
        return this;
    }

    /** Where the opcode puts {@code header}; an opcode that does not carry it is a caller's bug. */
    private int at(HeaderType header) {
        int relative = opcode.offsetOf(header);
        if (relative < 0) {
            throw new IllegalStateException(opcode + " carries no " + header);
        }
        return bthOffset + relative;
    }

    /** Where the IP header starts (after {@link #ethernet}). */
    public int ipOffset() {
        return ipOffset;
    }

    /** Where the UDP payload — the BTH — starts (after {@link #ipv4} or {@link #ipv6}). */
    public int udpPayloadOffset() {
        return bthOffset;
    }

    /** Where the payload goes: after BTH and the opcode's extension headers. */
    public int payloadOffset() {
        return bthOffset + opcode.headersLength();
    }

    /** Copies {@code length} payload bytes to {@link #payloadOffset()}. */
    public PacketWriter payload(byte[] source, int offset, int length) {
        System.arraycopy(source, offset, buffer, payloadOffset(), length);
        return this;
    }

    /**
     * Writes what depends on the payload's length — Ethernet, IP, UDP and BTH headers, the zero
     * pad to a 4-byte boundary (IBTA §9.2), the ICRC and, over IPv6, the UDP checksum — once
     * {@code payloadLength} bytes are in place.
     *
     * @return the frame's length from the offset given to {@link #ethernet}
     */
    public int finish(int payloadLength) {
        byte[] b = buffer;
        int pad = RocePacket.padFor(payloadLength);
        int payloadEnd = payloadOffset() + payloadLength;
        for (int i = 0; i < pad; i++) {
            b[payloadEnd + i] = 0;
        }
        int icrcOffset = payloadEnd + pad;
        int end = icrcOffset + IcrcCalculator.LENGTH;
        headers(end - bthOffset);
        Bth.write(b, bthOffset, opcode, solicitedEvent, migReq, pad, 0, pkey, fecn, becn, destQp, ackReq, psn);
        if (icrcOffloaded && offloadsIcrcOf(opcode.code())) {
            Bytes.i32(b, icrcOffset, 0);
        } else {
            icrc.fill(b, ipOffset, icrcOffset);
        }
        if (ipVersion == 6) {
            // The ICRC masks the UDP checksum, so filling it in afterwards leaves the ICRC valid.
            Bytes.u16(b, udpOffset + UdpHeader.CHECKSUM_OFFSET, UdpHeader.checksum(b, ipOffset, end - udpOffset));
        }
        return end - frameOffset;
    }

    /**
     * Turns the frame at {@code frame[offset..]} — a MIDDLE packet over IPv4, BTH then payload (no extension
     * header carries one) — into the next packet of the same message, in place: a MIDDLE one, or with
     * {@code last} the message's plain LAST (as long, no immediate, no invalidate: the same headers); the PSN
     * one more (IBTA 9.7.1: a message's packets take consecutive PSNs), the IPv4 Identification
     * {@code identificationStep} more (0 where the sender numbers every packet 0) with its header checksum, and
     * AckReq as given. The lengths and the payload's place stay; the payload and the ICRC are the caller's (a
     * frame whose ICRC was {@linkplain #offloadIcrc offloaded} keeps it zero).
     *
     * @throws IllegalArgumentException if the frame is not IPv4 or its opcode not a MIDDLE one
     */
    public static void nextPacket(byte[] frame, int offset, int identificationStep, boolean ackReq, boolean last) {
        int ip = EthernetHeader.payloadOffset(frame, offset);
        if (IpHeader.versionAt(frame, ip) != 4) {
            throw new IllegalArgumentException("not an IPv4 frame");
        }
        int bth = ip + Ipv4Header.LENGTH + UdpHeader.LENGTH;
        Opcode opcode = Opcode.lookup(Bytes.u8(frame, bth));
        if (opcode == null || opcode.position() != Position.MIDDLE) {
            throw new IllegalArgumentException("not a MIDDLE packet: " + opcode);
        }
        if (identificationStep != 0) {
            Ipv4Header.addToIdentification(frame, ip, identificationStep);
        }
        if (last) {
            Bytes.u8(frame, bth, opcode.at(Position.LAST).code());
        }
        Bytes.u8(frame, bth + 8, ackReq ? 0x80 : 0);
        Bytes.u24(frame, bth + 9, Psn.next(Bytes.u24(frame, bth + 9)));
    }

    /**
     * Completes a frame that {@link #finish} built with its ICRC {@linkplain #offloadIcrc offloaded}, as the
     * transmit engine it was left to would: the ICRC computed by {@code icrc} (an RC FLUSH kept its own) and, over
     * IPv6, the UDP checksum again (it covers the ICRC and the payload, which may have been filled in since). For
     * a frame that must leave as it goes on the wire after all — to a pcap tap that started after it was sent.
     *
     * @param length the frame's length from {@code offset}, ICRC included
     */
    public static void finishOffloaded(byte[] frame, int offset, int length, IcrcCalculator icrc) {
        int ip = EthernetHeader.payloadOffset(frame, offset);
        boolean v6 = IpHeader.versionAt(frame, ip) == 6;
        int udp = ip + (v6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH);
        int icrcOffset = offset + length - IcrcCalculator.LENGTH;
        if (offloadsIcrcOf(Bytes.u8(frame, udp + UdpHeader.LENGTH))) {
            icrc.fill(frame, ip, icrcOffset);
        }
        if (v6) {
            int udpLength = offset + length - udp;
            Bytes.u16(frame, udp + UdpHeader.CHECKSUM_OFFSET, UdpHeader.checksum(frame, ip, udpLength));
        }
    }

    /** {@return whether a frame of this opcode leaves its ICRC out when {@linkplain #offloadIcrc offloaded}} */
    private static boolean offloadsIcrcOf(int opcode) {
        return opcode != Opcode.RC_FLUSH.code(); // see offloadIcrc: rxe's and IBTA's differ
    }

    /**
     * Writes the Ethernet, IP and UDP headers alone — lengths and the IPv4 header checksum derived,
     * UDP checksum 0 — in front of the {@code udpPayloadLength} bytes (BTH to ICRC) at
     * {@link #udpPayloadOffset()}, which it leaves as they are.
     *
     * @return the frame's length from the offset given to {@link #ethernet}
     */
    public int headers(int udpPayloadLength) {
        byte[] b = buffer;
        int udpLength = UdpHeader.LENGTH + udpPayloadLength;
        boolean v4 = ipVersion == 4;
        EthernetHeader.write(b, frameOffset, destinationMac, sourceMac, vlanTci,
                v4 ? EthernetHeader.ETHERTYPE_IPV4 : EthernetHeader.ETHERTYPE_IPV6);
        if (v4) {
            Ipv4Header.write(b, ipOffset, trafficClass, identification, dontFragment, hopLimit, sourceIp,
                    destinationIp, udpLength);
        } else {
            Ipv6Header.write(b, ipOffset, trafficClass, flowLabel, hopLimit, sourceIp, destinationIp, udpLength);
        }
        UdpHeader.write(b, udpOffset, sourcePort, UdpHeader.ROCE_PORT, udpPayloadLength, 0);
        return bthOffset + udpPayloadLength - frameOffset;
    }
}
