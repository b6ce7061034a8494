package org.roce4j.wire;

import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC (IBTA Annex A17.4.2): standard CRC-32 over, in order,
 * <ol>
 *   <li>8 bytes of 0xFF standing in for the InfiniBand LRH,</li>
 *   <li>the IP header with the fields routers may change set to all ones — IPv4: TOS (DSCP and
 *       ECN), TTL and header checksum; IPv6: traffic class, flow label and hop limit,</li>
 *   <li>the UDP header with its checksum set to all ones,</li>
 *   <li>the BTH with byte 4 (FECN, BECN, reserved) set to all ones,</li>
 *   <li>everything after the BTH up to the ICRC.</li>
 * </ol>
 * The 4-byte result is carried least significant byte first. IPv4 Identification and the UDP
 * source port are covered. Reuse one instance per thread: it allocates nothing per packet.
 *
 * <p>Linux rxe (kernel 6.2 on) puts another ICRC on an RC FLUSH, and accepts only that one:
 * {@code rxe_icrc.c} runs the CRC over the headers as above and then over the packet's payload,
 * which it finds at {@code rxe_opcode[opcode].offset[RXE_PAYLOAD]}; the RC FLUSH row of
 * {@code rxe_opcode.c} gives no payload offset (0), so its "payload" is the BTH, FETH and RETH
 * again, unmasked, {@code payload_size} = 32 bytes. {@link #flushAsRxe(boolean)} makes this
 * calculator compute that ICRC for RC FLUSH packets (and IBTA's for all others).
 */
public final class IcrcCalculator {
    /** Bytes the ICRC takes at the end of the packet. */
    public static final int LENGTH = 4;
    private static final int PSEUDO_LRH = 8;
    /**
     * Where the IPv4 Identification (16 bits, then the flags word) lies in the ICRC's input: after
     * the pseudo-LRH, at IP header bytes 4 and 5. A receiver that does not know it can solve for it.
     */
    public static final int IPV4_IDENTIFICATION_POSITION = PSEUDO_LRH + Ipv4Header.IDENTIFICATION_OFFSET;
    private static final int MASKED_TAIL = UdpHeader.LENGTH + 12; // UDP + BTH

    private final CRC32 crc = new CRC32();
    private boolean flushAsRxe;
    private final byte[] masked = new byte[PSEUDO_LRH + Ipv6Header.LENGTH + MASKED_TAIL];

    public IcrcCalculator() {
        Arrays.fill(masked, 0, PSEUDO_LRH, (byte) 0xFF);
    }

    /**
     * Sets whether an RC FLUSH's ICRC is computed as Linux rxe computes it (its headers counted twice,
     * see the class comment) rather than as IBTA's; packets of every other opcode are not affected.
     */
    public void flushAsRxe(boolean asRxe) {
        this.flushAsRxe = asRxe;
    }

    /**
     * Computes the ICRC of the packet whose IP header starts at {@code ipOffset} (IPv4 without
     * options, or IPv6 without extension headers, then UDP, then BTH) and whose ICRC starts at
     * {@code icrcOffset}. The layout is chosen by the IP version nibble: 6 means IPv6, anything
     * else is treated as IPv4.
     *
     * @throws IllegalArgumentException when the range cannot hold IP, UDP and BTH headers
     */
    public int compute(byte[] frame, int ipOffset, int icrcOffset) {
        boolean ipv6 = isIpv6(frame, ipOffset);
        if (!fits(frame, ipOffset, icrcOffset, ipv6)) {
            throw new IllegalArgumentException("no room for IP, UDP and BTH headers between " + ipOffset + " and " + icrcOffset);
        }
        int ipLength = ipv6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH;
        int maskedLength = ipLength + MASKED_TAIL;
        System.arraycopy(frame, ipOffset, masked, PSEUDO_LRH, maskedLength);
        int ip = PSEUDO_LRH;
        if (ipv6) {
            maskIpv6VariantFields(masked, ip);
        } else {
            masked[ip + 1] = (byte) 0xFF;  // TOS
            masked[ip + 8] = (byte) 0xFF;  // TTL
            masked[ip + 10] = (byte) 0xFF; // header checksum
            masked[ip + 11] = (byte) 0xFF;
        }
        int udp = ip + ipLength;
        masked[udp + 6] = (byte) 0xFF;     // UDP checksum
        masked[udp + 7] = (byte) 0xFF;
        masked[udp + UdpHeader.LENGTH + 4] = (byte) 0xFF; // BTH byte 4
        crc.reset();
        crc.update(masked, 0, PSEUDO_LRH + maskedLength);
        int rest = ipOffset + maskedLength;
        crc.update(frame, rest, icrcOffset - rest);
        int bth = rest - HeaderType.BTH.length();
        if (repeatsTransportHeaders(frame, bth)) {
            crc.update(frame, bth, icrcOffset - bth); // rxe_icrc.c: payload_addr(pkt) is the BTH for RC FLUSH
        }
        return (int) crc.getValue();
    }

    /**
     * Sets to ones the fields of the IPv6 header (or of the GRH, laid out the same, IBTA 8.3) at
     * {@code at} that routers may change: traffic class, flow label, hop limit (A17.4.2, §7.8.1).
     */
    static void maskIpv6VariantFields(byte[] b, int at) {
        b[at] |= 0x0F;            // traffic class, high nibble
        b[at + 1] = (byte) 0xFF;  // traffic class low nibble, flow label
        b[at + 2] = (byte) 0xFF;
        b[at + 3] = (byte) 0xFF;
        b[at + 7] = (byte) 0xFF;  // hop limit
    }

    /**
     * True when the ICRC stored at {@code icrcOffset} matches the packet; false too when the
     * range is too short to be a RoCEv2 packet of its IP version.
     */
    public boolean verify(byte[] frame, int ipOffset, int icrcOffset) {
        return fits(frame, ipOffset, icrcOffset, isIpv6(frame, ipOffset))
                && compute(frame, ipOffset, icrcOffset) == read(frame, icrcOffset);
    }

    private static boolean isIpv6(byte[] frame, int ipOffset) {
        return ipOffset >= 0 && ipOffset < frame.length && (frame[ipOffset] & 0xF0) == 0x60;
    }

    private static boolean fits(byte[] frame, int ipOffset, int icrcOffset, boolean ipv6) {
        int headers = (ipv6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH) + MASKED_TAIL;
        return ipOffset >= 0 && icrcOffset - ipOffset >= headers && icrcOffset <= frame.length - LENGTH;
    }

    /**
     * Bytes the CRC runs over for the packet whose IP header starts at {@code ipOffset}: pseudo-LRH
     * included, and an RC FLUSH's transport headers twice when they are {@linkplain #flushAsRxe counted
     * twice}.
     */
    public int coveredLength(byte[] frame, int ipOffset, int icrcOffset) {
        int bth = ipOffset + (isIpv6(frame, ipOffset) ? Ipv6Header.LENGTH : Ipv4Header.LENGTH) + UdpHeader.LENGTH;
        return PSEUDO_LRH + icrcOffset - ipOffset + (repeatsTransportHeaders(frame, bth) ? icrcOffset - bth : 0);
    }

    private boolean repeatsTransportHeaders(byte[] frame, int bthOffset) {
        return flushAsRxe && (frame[bthOffset] & 0xFF) == Opcode.RC_FLUSH.code();
    }

    /** Computes the ICRC and stores it at {@code icrcOffset}; returns the value. */
    public int fill(byte[] frame, int ipOffset, int icrcOffset) {
        int icrc = compute(frame, ipOffset, icrcOffset);
        write(frame, icrcOffset, icrc);
        return icrc;
    }

    /** Stores the ICRC value {@code icrc} at {@code icrcOffset}, least significant byte first, as {@link #read} reads it. */
    public static void write(byte[] frame, int icrcOffset, int icrc) {
        Bytes.i32le(frame, icrcOffset, icrc);
    }

    /** The ICRC value stored at {@code icrcOffset} (least significant byte first on the wire). */
    public static int read(byte[] frame, int icrcOffset) {
        return Bytes.i32le(frame, icrcOffset);
    }
}
