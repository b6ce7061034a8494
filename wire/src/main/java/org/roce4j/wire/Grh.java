package org.roce4j.wire;

import java.net.Inet6Address;

/**
 * InfiniBand Global Route Header (IBTA Vol. 1 §8.3), 40 bytes, laid out as an IPv6 header: IPVer
 * 6, TClass, FlowLabel, PayLen, NxtHdr, HopLmt, SGID, DGID. It follows the LRH on an InfiniBand
 * link when LNH says "IBA global", and the Ethernet header in RoCEv1 (Annex A16, EtherType 0x8915).
 * IPVer, PayLen and NxtHdr are not fields: PayLen is derived (the bytes after the GRH up to and
 * including the ICRC, §8.3.1) and NxtHdr is 0x1B, "BTH follows" (§8.3.1, IBA transport).
 */
public record Grh(int trafficClass, int flowLabel, int hopLimit, Inet6Address sourceGid, Inet6Address destinationGid) {
    public static final int LENGTH = 40;
    static final int VERSION = 6;
    /** NxtHdr for an IBA transport header (BTH) after the GRH (§8.3.1). */
    static final int NEXT_HEADER_BTH = 0x1B;

    public Grh {
        Bytes.requireRange("TClass", trafficClass, 0, 0xFF);
        Bytes.requireRange("FlowLabel", flowLabel, 0, 0xFFFFF);
        Bytes.requireRange("HopLmt", hopLimit, 0, 0xFF);
        if (sourceGid == null || destinationGid == null) {
            throw new IllegalArgumentException("source and destination GIDs are required");
        }
    }

    /** Writes the header in front of {@code payloadLength} bytes (BTH through ICRC). */
    void encode(byte[] b, int off, int payloadLength) {
        Ipv6Header.writeVariantFields(b, off, trafficClass, flowLabel, hopLimit);
        Bytes.u16(b, off + 4, payloadLength);
        Bytes.u8(b, off + 6, NEXT_HEADER_BTH);
        System.arraycopy(sourceGid.getAddress(), 0, b, off + 8, 16);
        System.arraycopy(destinationGid.getAddress(), 0, b, off + 24, 16);
    }

    static Grh decode(byte[] b, int off) {
        Ipv6Header same = Ipv6Header.decode(b, off); // the fields sit where IPv6 has them (§8.3)
        return new Grh(same.trafficClass(), same.flowLabel(), same.hopLimit(), same.source(), same.destination());
    }

    static int version(byte[] b, int off) {
        return Bytes.u8(b, off) >>> 4;
    }

    static int payloadLength(byte[] b, int off) {
        return Bytes.u16(b, off + 4);
    }

    static int nextHeader(byte[] b, int off) {
        return Bytes.u8(b, off + 6);
    }
}
