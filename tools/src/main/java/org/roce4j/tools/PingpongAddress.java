package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.net.Inet6Address;
import java.net.UnknownHostException;
import java.util.HexFormat;

import org.roce4j.verbs.Gid;
import org.roce4j.wire.FrameText;

/**
 * The address record the rdma-core pingpong examples ({@code ibv_rc_pingpong} and co.) exchange over
 * TCP: {@code sprintf("%04x:%06x:%06x:%s", lid, qpn, psn, gid)} where gid is the 16 raw GID bytes
 * in network order as 32 lower-case hex digits ({@code gid_to_wire_gid} in pingpong.c), 51
 * characters and a NUL: 52 bytes, written with one write and read as 52 bytes. For example the
 * client's record in {@code reference-pcaps/rxe_rc_pingpong.pcap} is
 * {@code 0000:000011:f55b54:00000000000000000000ffffc0a84d03\0}.
 *
 * @param lid 16-bit LID (0 on RoCE)
 * @param qpn 24-bit QP number
 * @param psn 24-bit first PSN
 * @param gid the GID, {@link Gid#ZERO} when the peer ran without {@code -g}
 */
record PingpongAddress(int lid, int qpn, int psn, Gid gid) {
    /** {@code sizeof "0000:000000:000000:00000000000000000000000000000000"}. */
    static final int LENGTH = 52;
    /** What ibv_srq_pingpong sends for the entries past its QPs: a memset-0 {@code pingpong_dest}. */
    static final PingpongAddress UNUSED = new PingpongAddress(0, 0, 0, Gid.ZERO);

    /** {@return the 52 bytes of the record, NUL included} */
    byte[] encode() {
        String text = String.format("%04x:%06x:%06x:%s", lid & 0xFFFF, qpn & 0xFFFFFF, psn & 0xFFFFFF,
                HexFormat.of().formatHex(gid.raw()));
        byte[] record = new byte[LENGTH];
        byte[] ascii = text.getBytes(US_ASCII);
        System.arraycopy(ascii, 0, record, 0, Math.min(ascii.length, LENGTH - 1));
        return record;
    }

    /**
     * Parses a record as the examples do ({@code sscanf(msg, "%x:%x:%x:%s")} then
     * {@code wire_gid_to_gid}): three hex fields separated by colons, then 32 hex digits of GID.
     *
     * @throws IllegalArgumentException when the bytes are not such a record
     */
    static PingpongAddress decode(byte[] record) {
        int end = 0;
        while (end < record.length && record[end] != 0) {
            end++;
        }
        String text = new String(record, 0, end, US_ASCII);
        String[] fields = text.split(":", 4);
        if (fields.length != 4 || fields[3].length() < 32) {
            throw new IllegalArgumentException("not a pingpong address record: \"" + text + "\"");
        }
        try {
            int lid = Integer.parseUnsignedInt(fields[0], 16);
            int qpn = Integer.parseUnsignedInt(fields[1], 16);
            int psn = Integer.parseUnsignedInt(fields[2], 16);
            byte[] gid = HexFormat.of().parseHex(fields[3].substring(0, 32));
            return new PingpongAddress(lid, qpn, psn, Gid.of(gid));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a pingpong address record: \"" + text + "\"", e);
        }
    }

    /**
     * The GID as the examples print it, {@code inet_ntop(AF_INET6, ...)} of glibc: RFC 5952 text,
     * except that glibc also writes an IPv4-compatible address ({@code ::a.b.c.d}) with a dotted quad.
     */
    static String gidText(Gid gid) {
        byte[] raw = gid.raw();
        boolean compatible = gid.subnetPrefix() == 0 && (gid.interfaceId() >>> 32) == 0
                && (raw[12] != 0 || raw[13] != 0);
        if (compatible) {
            return "::" + (raw[12] & 0xFF) + "." + (raw[13] & 0xFF) + "." + (raw[14] & 0xFF) + "." + (raw[15] & 0xFF);
        }
        try {
            return FrameText.address(Inet6Address.getByAddress(null, raw, null));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an address", e);
        }
    }
}
