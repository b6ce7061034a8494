package org.roce4j.wire;

/**
 * A reusable flyweight that parses a frame once, like rxe's {@code rxe_pkt_info}: where each
 * layer and header starts, where the payload is, how long it is, and whether the ICRC verified.
 * It keeps a reference to the caller's buffer and allocates nothing, so the hot path can parse
 * every received frame with one instance per thread.
 *
 * <p>This class holds the one copy of the frame validation rules; {@link RoceDecoder} builds
 * records on top of it. A parse never throws: it returns false and {@link #dropReason()} says why.
 */
public final class PacketInfo {
    private final IcrcCalculator icrcCalculator = new IcrcCalculator();
    private boolean flushIcrcAsRxe;

    private byte[] buffer;
    private int frameOffset;
    private int vlanTci;
    private int ipOffset;
    private int ipVersion;
    private int udpOffset;
    private int bthOffset;
    private Opcode opcode;
    private int payloadOffset;
    private int payloadLength;
    private int icrcOffset;
    private int datagramEnd;
    private int trailerLength;
    private IcrcStatus icrcStatus;
    private DropReason dropReason;
    private long dropValue;

    /**
     * Sets whether an RC FLUSH must carry the ICRC Linux rxe computes for it (its headers counted twice,
     * {@link IcrcCalculator}) rather than IBTA's, as a receiving rxe requires; other opcodes are not affected.
     */
    public void flushIcrcAsRxe(boolean asRxe) {
        flushIcrcAsRxe = asRxe;
        icrcCalculator.flushAsRxe(asRxe);
    }

    /**
     * Parses an Ethernet frame and verifies its ICRC.
     *
     * @return true when the frame is a well-formed RoCEv2 packet with a valid ICRC
     */
    public boolean parseFrame(byte[] frame, int offset, int length) {
        return parseLayers(frame, offset, length) && verifyIcrc();
    }

    /**
     * Parses an Ethernet frame as {@link #parseFrame} does but leaves its ICRC unchecked
     * ({@link #icrcStatus()} NOT_CHECKED): for a frame from an in-process link that vouches it is
     * byte for byte what its sender built, whose ICRC that sender may have left out
     * ({@link PacketWriter#offloadIcrc}). A real RNIC computes and checks the ICRC in hardware; a
     * software model whose frames cannot change on the way need not do either. An RC FLUSH is checked
     * all the same: Linux rxe and IBTA compute its ICRC differently ({@link #flushIcrcAsRxe}), and its
     * sender always puts one on.
     *
     * @return true when the frame is a well-formed RoCEv2 packet (an RC FLUSH: with a valid ICRC)
     */
    public boolean parseTrustedFrame(byte[] frame, int offset, int length) {
        return parseLayers(frame, offset, length) && (opcode != Opcode.RC_FLUSH || verifyIcrc());
    }

    /** Ethernet to the ICRC's place, every layer checked but the ICRC. */
    private boolean parseLayers(byte[] frame, int offset, int length) {
        reset(frame, offset);
        if (offset < 0 || length < 0 || offset > frame.length - length) {
            return drop(DropReason.TRUNCATED_ETHERNET, length);
        }
        int end = offset + length;
        if (length < EthernetHeader.LENGTH) {
            return drop(DropReason.TRUNCATED_ETHERNET, length);
        }
        int etherType = Bytes.u16(frame, offset + 12);
        ipOffset = offset + EthernetHeader.LENGTH;
        if (etherType == EthernetHeader.ETHERTYPE_VLAN) {
            if (length < EthernetHeader.LENGTH + EthernetHeader.VLAN_TAG_LENGTH) {
                return drop(DropReason.TRUNCATED_ETHERNET, length);
            }
            vlanTci = Bytes.u16(frame, offset + 14);
            etherType = Bytes.u16(frame, offset + 16);
            ipOffset += EthernetHeader.VLAN_TAG_LENGTH;
        }
        boolean ok = switch (etherType) {
            case EthernetHeader.ETHERTYPE_IPV4 -> parseIpv4(end);
            case EthernetHeader.ETHERTYPE_IPV6 -> parseIpv6(end);
            default -> drop(DropReason.NOT_IP, etherType);
        };
        if (!ok || !parseUdp() || !parseTransport(udpOffset + UdpHeader.LENGTH, datagramEnd)) {
            return false;
        }
        trailerLength = end - datagramEnd;
        return true;
    }

    private boolean verifyIcrc() {
        boolean valid = icrcCalculator.verify(buffer, ipOffset, icrcOffset);
        icrcStatus = valid ? IcrcStatus.VALID : IcrcStatus.INVALID;
        return valid || drop(DropReason.BAD_ICRC, IcrcCalculator.read(buffer, icrcOffset));
    }

    /**
     * Finds the layers of a frame this side wrote itself, checking none of them: Ethernet (an
     * 802.1Q tag skipped), the IP header after it — IPv6 when its version nibble says 6, IPv4
     * otherwise, as {@link IcrcCalculator} reads it — and UDP after that, so {@link #ipVersion()},
     * the address offsets and {@link #bthOffset()} (where the UDP payload starts) are known. For a
     * sender handing its own frame's UDP payload to a socket, which sends whatever the frame says;
     * nothing else is set ({@link #opcode()} stays null).
     *
     * @return false (a TRUNCATED_ {@link DropReason}) only when the frame cannot hold the headers
     */
    public boolean locateFrameHeaders(byte[] frame, int offset, int length) {
        reset(frame, offset);
        if (offset < 0 || length < EthernetHeader.LENGTH || offset > frame.length - length) {
            return drop(DropReason.TRUNCATED_ETHERNET, length);
        }
        boolean tagged = Bytes.u16(frame, offset + 12) == EthernetHeader.ETHERTYPE_VLAN;
        int ip = offset + EthernetHeader.LENGTH + (tagged ? EthernetHeader.VLAN_TAG_LENGTH : 0);
        int version = ip < offset + length && IpHeader.versionAt(frame, ip) == 6 ? 6 : 4;
        int end = offset + length;
        int udp = ip + (version == 6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH);
        if (udp > end) {
            return drop(DropReason.TRUNCATED_IP, end - ip);
        }
        if (udp + UdpHeader.LENGTH > end) {
            return drop(DropReason.TRUNCATED_UDP, end - udp);
        }
        vlanTci = tagged ? Bytes.u16(frame, offset + 14) : -1;
        ipOffset = ip;
        ipVersion = version;
        udpOffset = udp;
        bthOffset = udp + UdpHeader.LENGTH;
        return true;
    }

    /**
     * Parses what a UDP socket delivers for port 4791: BTH through ICRC. The ICRC is not checked
     * (its IP and UDP fields are not known here); {@link #icrcStatus()} is NOT_CHECKED.
     */
    public boolean parseUdpPayload(byte[] datagram, int offset, int length) {
        reset(datagram, offset);
        if (offset < 0 || length < 0 || offset > datagram.length - length) {
            return drop(DropReason.TRUNCATED_BTH, length);
        }
        ipOffset = -1;
        udpOffset = -1;
        datagramEnd = offset + length;
        return parseTransport(offset, datagramEnd);
    }

    /**
     * Parses a UDP payload as {@link #parseUdpPayload(byte[], int, int)} does, when whoever received
     * it wrote the IP header it knows (addresses from the socket) at {@code ipOffset} before it: then
     * {@link #ipVersion()}, {@link #ipOffset()} and the address offsets describe that header, as
     * they do after {@link #parseFrame}. Its lengths and checksum are not checked.
     */
    public boolean parseUdpPayload(byte[] datagram, int ipOffset, int offset, int length) {
        if (!parseUdpPayload(datagram, offset, length)) {
            return false;
        }
        int version = ipOffset >= 0 && ipOffset < datagram.length ? Bytes.u8(datagram, ipOffset) >>> 4 : 0;
        if (version != 4 && version != 6) {
            return drop(DropReason.BAD_IP_VERSION, version);
        }
        this.ipOffset = ipOffset;
        this.ipVersion = version;
        return true;
    }

    private boolean parseIpv4(int end) {
        ipVersion = 4;
        if (end - ipOffset < Ipv4Header.LENGTH) {
            return drop(DropReason.TRUNCATED_IP, end - ipOffset);
        }
        int versionIhl = Bytes.u8(buffer, ipOffset);
        if (versionIhl >>> 4 != 4) {
            return drop(DropReason.BAD_IP_VERSION, versionIhl >>> 4);
        }
        int totalLength = Bytes.u16(buffer, ipOffset + 2);
        int ihl = (versionIhl & 0xF) * 4;
        if (ihl < Ipv4Header.LENGTH || totalLength < ihl) {
            return drop(DropReason.BAD_IP_LENGTH, ihl < Ipv4Header.LENGTH ? ihl : totalLength);
        }
        if (ipOffset + totalLength > end) {
            return drop(DropReason.TRUNCATED_IP, totalLength);
        }
        int protocol = Bytes.u8(buffer, ipOffset + 9);
        if (protocol != Ipv4Header.PROTOCOL_UDP) {
            return drop(DropReason.NOT_UDP, protocol);
        }
        int fragment = Bytes.u16(buffer, ipOffset + 6);
        if ((fragment & 0x3FFF) != 0) { // MF set or non-zero fragment offset
            return drop(DropReason.IPV4_FRAGMENT, fragment);
        }
        if (ihl != Ipv4Header.LENGTH) {
            return drop(DropReason.IPV4_OPTIONS, ihl);
        }
        if (Ipv4Header.checksum(buffer, ipOffset) != 0) {
            return drop(DropReason.BAD_IPV4_CHECKSUM, Bytes.u16(buffer, ipOffset + 10));
        }
        udpOffset = ipOffset + Ipv4Header.LENGTH;
        datagramEnd = ipOffset + totalLength;
        return true;
    }

    private boolean parseIpv6(int end) {
        ipVersion = 6;
        if (end - ipOffset < Ipv6Header.LENGTH) {
            return drop(DropReason.TRUNCATED_IP, end - ipOffset);
        }
        int version = Bytes.u8(buffer, ipOffset) >>> 4;
        if (version != 6) {
            return drop(DropReason.BAD_IP_VERSION, version);
        }
        int payloadLen = Bytes.u16(buffer, ipOffset + 4);
        if (payloadLen == 0) { // a jumbogram (RFC 2675) or garbage; RoCEv2 uses neither
            return drop(DropReason.BAD_IP_LENGTH, payloadLen);
        }
        if (ipOffset + Ipv6Header.LENGTH + payloadLen > end) {
            return drop(DropReason.TRUNCATED_IP, payloadLen);
        }
        int nextHeader = Bytes.u8(buffer, ipOffset + 6);
        if (nextHeader != Ipv6Header.NEXT_HEADER_UDP) {
            return drop(DropReason.NOT_UDP, nextHeader);
        }
        udpOffset = ipOffset + Ipv6Header.LENGTH;
        datagramEnd = udpOffset + payloadLen;
        return true;
    }

    private boolean parseUdp() {
        if (datagramEnd - udpOffset < UdpHeader.LENGTH) {
            return drop(DropReason.TRUNCATED_UDP, datagramEnd - udpOffset);
        }
        int udpLength = Bytes.u16(buffer, udpOffset + 4);
        if (udpLength != datagramEnd - udpOffset) {
            return drop(DropReason.BAD_UDP_LENGTH, udpLength);
        }
        int port = Bytes.u16(buffer, udpOffset + 2);
        return port == UdpHeader.ROCE_PORT || drop(DropReason.NOT_ROCE_PORT, port);
    }

    /** BTH at {@code bth}, ICRC in the last four bytes before {@code end}. */
    private boolean parseTransport(int bth, int end) {
        bthOffset = bth;
        int length = end - bth;
        if (length < HeaderType.BTH.length() + IcrcCalculator.LENGTH) {
            return drop(DropReason.TRUNCATED_BTH, length);
        }
        int flags = Bytes.u8(buffer, bth + 1);
        if ((flags & 0xF) != 0) { // IBTA §9.2: TVer is 0; rxe_recv.c drops any other version
            return drop(DropReason.BAD_TRANSPORT_VERSION, flags & 0xF);
        }
        int code = Bytes.u8(buffer, bth);
        opcode = Opcode.lookup(code);
        if (opcode == null) {
            return drop(DropReason.UNKNOWN_OPCODE, code);
        }
        int paddedPayload = length - opcode.headersLength() - IcrcCalculator.LENGTH;
        if (paddedPayload < 0) {
            return drop(DropReason.TRUNCATED_HEADERS, length);
        }
        int pad = flags >>> 4 & 0x3;
        if (!opcode.carriesPayload() && paddedPayload != 0) {
            return drop(DropReason.UNEXPECTED_PAYLOAD, paddedPayload);
        }
        // IBTA §9.2: the pad brings the payload to a 4-byte multiple, so payload + pad is one.
        if (pad > paddedPayload || (paddedPayload & 3) != 0) {
            return drop(DropReason.BAD_PAD_COUNT, pad);
        }
        payloadOffset = bth + opcode.headersLength();
        payloadLength = paddedPayload - pad;
        icrcOffset = end - IcrcCalculator.LENGTH;
        return true;
    }

    private void reset(byte[] frame, int offset) {
        buffer = frame;
        frameOffset = offset;
        vlanTci = -1;
        ipOffset = udpOffset = bthOffset = payloadOffset = icrcOffset = -1;
        ipVersion = 0;
        payloadLength = 0;
        datagramEnd = 0;
        trailerLength = 0;
        opcode = null;
        icrcStatus = IcrcStatus.NOT_CHECKED;
        dropReason = null;
        dropValue = 0;
    }

    private boolean drop(DropReason reason, long value) {
        dropReason = reason;
        dropValue = value;
        return false;
    }

    /** Why the last parse failed, or null when it succeeded. */
    public DropReason dropReason() {
        return dropReason;
    }

    /** The offending value behind {@link #dropReason()} (an opcode, a length, a port, ...). */
    public long dropValue() {
        return dropValue;
    }

    /** A human-readable reason for the last drop (allocates; not for the hot path). */
    public String dropDetail() {
        if (dropReason == null) {
            return "";
        }
        String value = switch (dropReason) {
            case NOT_IP -> "EtherType 0x%04x".formatted(dropValue);
            case UNKNOWN_OPCODE -> "opcode 0x%02x".formatted(dropValue);
            case BAD_ICRC -> "ICRC 0x%08x on the wire, 0x%08x computed".formatted(
                    (int) dropValue, icrcCalculator.compute(buffer, ipOffset, icrcOffset)) + otherFlushIcrc();
            case BAD_IPV4_CHECKSUM -> "checksum 0x%04x".formatted(dropValue);
            case NOT_ROCE_PORT -> "port " + dropValue;
            case NOT_UDP -> "protocol " + dropValue;
            case BAD_PAD_COUNT -> "pad count " + dropValue;
            default -> "value " + dropValue;
        };
        return dropReason.description() + " (" + value + ")";
    }

    /** For an RC FLUSH whose ICRC failed: whether it is the one the other way of computing it gives. */
    private String otherFlushIcrc() {
        if (opcode != Opcode.RC_FLUSH) {
            return "";
        }
        icrcCalculator.flushAsRxe(!flushIcrcAsRxe);
        boolean other = icrcCalculator.compute(buffer, ipOffset, icrcOffset) == (int) dropValue;
        icrcCalculator.flushAsRxe(flushIcrcAsRxe);
        if (!other) {
            return "";
        }
        return flushIcrcAsRxe ? "; it is IBTA's ICRC, which Linux rxe refuses on an RC FLUSH"
                : "; it is the ICRC Linux rxe puts on an RC FLUSH (BTH, FETH and RETH counted twice)";
    }

    public byte[] buffer() { return buffer; }
    public int frameOffset() { return frameOffset; }
    /** The 802.1Q TCI, or -1 when untagged. */
    public int vlanTci() { return vlanTci; }
    /** 4, 6, or 0 when no IP header was parsed. */
    public int ipVersion() { return ipVersion; }
    /** Offset of the IP header in {@link #buffer()}, -1 when none. */
    public int ipOffset() { return ipOffset; }
    public int udpOffset() { return udpOffset; }
    /** Offset of the IP source address (IPv4: 4 bytes, IPv6: 16), -1 when no IP header is known. */
    public int ipSourceOffset() {
        return ipOffset < 0 ? -1 : ipOffset + (ipVersion == 4 ? Ipv4Header.SOURCE_OFFSET : Ipv6Header.SOURCE_OFFSET);
    }
    /** Offset of the IP destination address, right after the source; -1 when no IP header is known. */
    public int ipDestinationOffset() {
        return ipOffset < 0 ? -1 : ipSourceOffset() + ipAddressLength();
    }
    /** Bytes of the IP header: 20 (IPv4 options are refused), 40, or 0 when no IP header is known. */
    public int ipHeaderLength() {
        return ipVersion == 4 ? Ipv4Header.LENGTH : ipVersion == 6 ? Ipv6Header.LENGTH : 0;
    }
    /** Bytes of one IP address: 4 or 16 (0 when no IP header is known). */
    public int ipAddressLength() {
        return ipVersion == 4 ? 4 : ipVersion == 6 ? 16 : 0;
    }
    public int bthOffset() { return bthOffset; }
    public Opcode opcode() { return opcode; }
    public int payloadOffset() { return payloadOffset; }
    public int payloadLength() { return payloadLength; }
    public int icrcOffset() { return icrcOffset; }
    /** End of the IP datagram: bytes after it (Ethernet padding) are ignored. */
    public int datagramEnd() { return datagramEnd; }
    /** Bytes after the IP datagram in the frame (Ethernet minimum-size padding). */
    public int trailerLength() { return trailerLength; }
    public IcrcStatus icrcStatus() { return icrcStatus; }

    /** Absolute offset of {@code header} in the buffer, or -1 when the opcode does not carry it. */
    public int offsetOf(HeaderType header) {
        int relative = opcode.offsetOf(header);
        return relative < 0 ? -1 : bthOffset + relative;
    }

    // BTH fields, read straight from the buffer.
    public boolean solicitedEvent() { return (buffer[bthOffset + 1] & 0x80) != 0; }
    public boolean migReq() { return (buffer[bthOffset + 1] & 0x40) != 0; }
    public int padCount() { return buffer[bthOffset + 1] >>> 4 & 0x3; }
    public int pkey() { return Bytes.u16(buffer, bthOffset + 2); }
    public boolean fecn() { return (buffer[bthOffset + 4] & 0x80) != 0; }
    public boolean becn() { return (buffer[bthOffset + 4] & 0x40) != 0; }
    public int destQp() { return Bytes.u24(buffer, bthOffset + 5); }
    public boolean ackReq() { return (buffer[bthOffset + 8] & 0x80) != 0; }
    public int psn() { return Bytes.u24(buffer, bthOffset + 9); }
    /** The ICRC as carried (least significant byte first on the wire). */
    public int icrc() { return IcrcCalculator.read(buffer, icrcOffset); }

    // Extension header fields; valid only when the opcode carries the header.
    public long rethVirtualAddress() { return Bytes.i64(buffer, offsetOf(HeaderType.RETH)); }
    public int rethRkey() { return Bytes.i32(buffer, offsetOf(HeaderType.RETH) + 8); }
    public int rethDmaLength() { return Bytes.i32(buffer, offsetOf(HeaderType.RETH) + 12); }
    public int aethSyndrome() { return Bytes.u8(buffer, offsetOf(HeaderType.AETH)); }
    public int aethMsn() { return Bytes.u24(buffer, offsetOf(HeaderType.AETH) + 1); }
    public int dethQkey() { return Bytes.i32(buffer, offsetOf(HeaderType.DETH)); }
    public int dethSourceQp() { return Bytes.u24(buffer, offsetOf(HeaderType.DETH) + 5); }
    public int immediateData() { return Bytes.i32(buffer, offsetOf(HeaderType.IMM_DT)); }
    public int invalidateRkey() { return Bytes.i32(buffer, offsetOf(HeaderType.IETH)); }
    /** FETH bits 3-0 (rxe_hdr.h feth_plt): the FLUSH's placement type. */
    public int fethPlacementType() { return Bytes.i32(buffer, offsetOf(HeaderType.FETH)) & 0xF; }
    /** FETH bits 5-4 (rxe_hdr.h feth_sel): the FLUSH's selectivity level. */
    public int fethSelectivityLevel() { return Bytes.i32(buffer, offsetOf(HeaderType.FETH)) >>> 4 & 0x3; }
    public long atomicVirtualAddress() { return Bytes.i64(buffer, offsetOf(HeaderType.ATOMIC_ETH)); }
    public int atomicRkey() { return Bytes.i32(buffer, offsetOf(HeaderType.ATOMIC_ETH) + 8); }
    public long atomicSwapOrAdd() { return Bytes.i64(buffer, offsetOf(HeaderType.ATOMIC_ETH) + 12); }
    public long atomicCompare() { return Bytes.i64(buffer, offsetOf(HeaderType.ATOMIC_ETH) + 20); }
    public long atomicOriginalData() { return Bytes.i64(buffer, offsetOf(HeaderType.ATOMIC_ACK_ETH)); }
}
