package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.nio.ByteBuffer;
import java.util.Locale;

import org.roce4j.verbs.Gid;

/**
 * The address record perftest 6.06 ({@code ib_write_bw} and co.) exchanges over TCP on RoCE, always
 * in its GID form: {@code %04x:%04x:%06x:%06x:%08x:%016llx:} (lid, out_reads, qpn, psn, rkey, vaddr),
 * the 16 GID bytes each as {@code %02x:}, then {@code %08x:} (srqn): 107 characters and a NUL, 108
 * bytes. For example the client's record in {@code reference-pcaps/rxe_write_bw.pcap} is
 * {@code 0000:0001:000011:82f32e:0000029d:0000558eed18d000:00:00:00:00:00:00:00:00:00:00:ff:ff:c0:a8:4d:03:00000000:\0}.
 */
record PerftestAddress(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn) {
    static final int LENGTH = 108;
    /** {@code sizeof(struct pingpong_dest)}: what {@code -R} sends instead of the text (below). */
    static final int RDMA_CM_LENGTH = 56;
    /** The record of {@code create_rdma_cm_connection}'s two syncs: {@code my_dest} still all zeros. */
    static final PerftestAddress EMPTY = new PerftestAddress(0, 0, 0, 0, 0, 0, Gid.of(new byte[16]), 0);

    /** {@return the 108 bytes of the record, NUL included} */
    byte[] encode() {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%04x:%04x:%06x:%06x:%08x:%016x:",
                lid & 0xFFFF, outReads & 0xFFFF, qpn & 0xFFFFFF, psn & 0xFFFFFF, rkey, vaddr));
        for (byte b : gid.raw()) {
            text.append(String.format(Locale.ROOT, "%02x:", b & 0xFF));
        }
        text.append(String.format(Locale.ROOT, "%08x:", srqn));
        byte[] ascii = text.toString().getBytes(US_ASCII);
        if (ascii.length != LENGTH - 1) {
            throw new IllegalStateException("a perftest record is 107 characters, not " + ascii.length);
        }
        byte[] record = new byte[LENGTH];
        System.arraycopy(ascii, 0, record, 0, ascii.length);
        return record;
    }

    /**
     * Parses a record as perftest's {@code sscanf} does: the six fields, sixteen GID bytes and the
     * SRQ number, hex, colon-separated.
     *
     * @throws IllegalArgumentException when the bytes are not such a record
     */
    static PerftestAddress decode(byte[] record) {
        int end = 0;
        while (end < record.length && record[end] != 0) {
            end++;
        }
        String text = new String(record, 0, end, US_ASCII);
        String[] f = text.split(":");
        if (f.length < 23) {
            throw new IllegalArgumentException("not a perftest address record: \"" + text + "\"");
        }
        try {
            byte[] gid = new byte[16];
            for (int i = 0; i < 16; i++) {
                gid[i] = (byte) Integer.parseUnsignedInt(f[6 + i], 16);
            }
            return new PerftestAddress(Integer.parseUnsignedInt(f[0], 16), Integer.parseUnsignedInt(f[1], 16),
                    Integer.parseUnsignedInt(f[2], 16), Integer.parseUnsignedInt(f[3], 16),
                    Integer.parseUnsignedInt(f[4], 16), Long.parseUnsignedLong(f[5], 16), Gid.of(gid),
                    Integer.parseUnsignedInt(f[22], 16));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a perftest address record: \"" + text + "\"", e);
        }
    }

    /**
     * The record as {@code -R} sends it over the rdma_cm QP ({@code rdma_write_keys}): {@code struct
     * pingpong_dest} itself with each integer big-endian (htobe32/htobe64) — lid, out_reads, qpn, psn,
     * rkey, 4 bytes of struct padding (0 here; perftest sends whatever its stack held), vaddr, the 16
     * GID bytes, srqn, gid_index — 56 bytes. In
     * {@code reference-pcaps/rxe_rping_cm.pcap} the client's is {@code 00000000 00000001 00000013
     * 0034a2a2 0000071f 00000000 00005607a5daf000 00000000000000000000ffffc0a84d03 00000000 00000001}.
     */
    byte[] encodeForRdmaCm(int gidIndex) {
        ByteBuffer record = ByteBuffer.allocate(RDMA_CM_LENGTH);
        record.putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey).putInt(0).putLong(vaddr)
                .put(gid.raw()).putInt(srqn).putInt(gidIndex);
        return record.array();
    }

    /**
     * Reads a record {@link #encodeForRdmaCm} wrote, as {@code rdma_read_keys} does: it takes lid,
     * out_reads, qpn, psn, rkey, vaddr and the GID, and leaves srqn (and gid_index) as they were, 0.
     *
     * @throws IllegalArgumentException when fewer than 56 bytes arrived
     */
    static PerftestAddress decodeFromRdmaCm(byte[] record) {
        if (record.length < RDMA_CM_LENGTH) {
            throw new IllegalArgumentException("a perftest rdma_cm record is " + RDMA_CM_LENGTH + " bytes, not "
                    + record.length);
        }
        ByteBuffer in = ByteBuffer.wrap(record);
        int lid = in.getInt();
        int outReads = in.getInt();
        int qpn = in.getInt();
        int psn = in.getInt();
        int rkey = in.getInt();
        in.getInt();
        long vaddr = in.getLong();
        byte[] gid = new byte[16];
        in.get(gid);
        return new PerftestAddress(lid, outReads, qpn, psn, rkey, vaddr, Gid.of(gid), 0);
    }

    /** C's {@code %#0Nx}: zero-padded to N including the "0x", which a 0 does not get. */
    static String alternateHex(long value, int width) {
        if (value == 0) {
            return "0".repeat(width);
        }
        String digits = Long.toHexString(value);
        return "0x" + "0".repeat(Math.max(0, width - 2 - digits.length())) + digits;
    }

    /**
     * The two lines perftest prints for an address on RoCE ({@code ctx_print_pingpong_data}): {@code
     * " local address: LID %#04x QPN %#06x PSN %#06x RKey %#08x VAddr %#016Lx"} and the GID bytes in
     * decimal, {@code " GID: %02d:..."}.
     */
    String describe(String side) {
        return describe(side, false, true);
    }

    /**
     * {@link #describe(String)} as each test prints it: READ tests add {@code " OUT %#04x"} (out_reads)
     * after the PSN; SEND and atomic tests print neither RKey nor VAddr (seen in perftest 6.06's output).
     */
    String describe(String side, boolean outReadsShown, boolean memoryShown) {
        StringBuilder line = new StringBuilder(" " + side + " address: LID " + alternateHex(lid, 4) + " QPN "
                + alternateHex(qpn, 6) + " PSN " + alternateHex(psn, 6));
        if (outReadsShown) {
            line.append(" OUT ").append(alternateHex(outReads, 4));
        }
        if (memoryShown) {
            line.append(" RKey ").append(alternateHex(Integer.toUnsignedLong(rkey), 8)).append(" VAddr ")
                    .append(alternateHex(vaddr, 16));
        }
        line.append("\n GID: ");
        byte[] raw = gid.raw();
        for (int i = 0; i < raw.length; i++) {
            line.append(String.format(Locale.ROOT, i == 0 ? "%02d" : ":%02d", raw[i] & 0xFF));
        }
        return line.toString();
    }
}
