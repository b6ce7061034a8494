package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;

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
