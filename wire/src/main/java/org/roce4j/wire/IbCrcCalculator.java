package org.roce4j.wire;

import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The CRCs of RoCEv1 and native InfiniBand packets.
 *
 * <p>ICRC (IBTA Vol. 1 §7.8.1): the CRC-32 of {@link IcrcCalculator} over the packet from the
 * first byte of the LRH to the last before the ICRC, with the fields that may change in flight set
 * to all ones — the LRH's VL, the GRH's TClass, FlowLabel and HopLmt, the BTH's byte 4 (resv8a,
 * where FECN and BECN live). RoCEv1 has no LRH: 8 bytes of ones stand in for it (Annex A16, as
 * A17.4.2 does for RoCEv2), then the GRH. Carried least significant byte first, as RoCEv2's.
 *
 * <p>VCRC (IBTA §7.8.2): CRC-16 with polynomial x^16+x^12+x^3+x+1 (0x100B), seed 0xFFFF, bits
 * in the same order as the ICRC (reflected) and the result complemented, over every byte from the
 * LRH through the ICRC, nothing masked; carried after the ICRC, least significant byte first. It
 * is recomputed on every link, so RoCE, where Ethernet's FCS does its job, has none.
 *
 * <p>Reuse one instance per thread: it allocates nothing per packet.
 */
public final class IbCrcCalculator {
    public static final int VCRC_LENGTH = 2;
    private static final int PSEUDO_LRH = Lrh.LENGTH;
    private static final int BTH_LENGTH = 12;
    /** 0x100B with its bits reversed, for the least-significant-bit-first form. */
    private static final int VCRC_POLYNOMIAL_REFLECTED = 0xD008;
    private static final int[] VCRC_TABLE = vcrcTable();

    private final CRC32 crc = new CRC32();
    private final byte[] masked = new byte[Lrh.LENGTH + Grh.LENGTH + BTH_LENGTH];

    /** The ICRC of a RoCEv1 packet whose GRH starts at {@code grhOffset}; BTH follows the GRH. */
    public int roceV1Icrc(byte[] b, int grhOffset, int icrcOffset) {
        Arrays.fill(masked, 0, PSEUDO_LRH, (byte) 0xFF);
        return icrc(b, grhOffset, PSEUDO_LRH, true, icrcOffset);
    }

    /**
     * The ICRC of an InfiniBand packet whose LRH starts at {@code lrhOffset}; a GRH follows the LRH
     * when its LNH says "IBA global".
     */
    public int infinibandIcrc(byte[] b, int lrhOffset, int icrcOffset) {
        System.arraycopy(b, lrhOffset, masked, 0, Lrh.LENGTH);
        masked[0] |= (byte) 0xF0; // VL
        boolean global = Lrh.linkNextHeader(b, lrhOffset) == Lrh.LNH_IBA_GLOBAL;
        return icrc(b, lrhOffset + Lrh.LENGTH, Lrh.LENGTH, global, icrcOffset);
    }

    /** Masks the GRH (if any) and BTH at {@code from} into {@code masked} after {@code lrh} bytes, then runs the CRC. */
    private int icrc(byte[] b, int from, int lrh, boolean global, int icrcOffset) {
        int headers = (global ? Grh.LENGTH : 0) + BTH_LENGTH;
        if (from < 0 || icrcOffset - from < headers || icrcOffset > b.length) {
            throw new IllegalArgumentException("no room for " + (global ? "GRH and " : "") + "BTH between "
                    + from + " and " + icrcOffset);
        }
        System.arraycopy(b, from, masked, lrh, headers);
        int bth = lrh;
        if (global) {
            IcrcCalculator.maskIpv6VariantFields(masked, lrh); // TClass, FlowLabel, HopLmt
            bth += Grh.LENGTH;
        }
        masked[bth + 4] = (byte) 0xFF;      // resv8a: FECN, BECN, reserved
        crc.reset();
        crc.update(masked, 0, lrh + headers);
        crc.update(b, from + headers, icrcOffset - from - headers);
        return (int) crc.getValue();
    }

    /** The VCRC of {@code b[from, to)}: for an InfiniBand packet, its LRH through its ICRC. */
    public static int vcrc(byte[] b, int from, int to) {
        int c = 0xFFFF;
        for (int i = from; i < to; i++) {
            c = VCRC_TABLE[(c ^ b[i]) & 0xFF] ^ c >>> 8;
        }
        return ~c & 0xFFFF;
    }

    /** The VCRC stored at {@code offset}, least significant byte first. */
    public static int readVcrc(byte[] b, int offset) {
        return Bytes.u8(b, offset) | Bytes.u8(b, offset + 1) << 8;
    }

    static void writeVcrc(byte[] b, int offset, int vcrc) {
        Bytes.u8(b, offset, vcrc & 0xFF);
        Bytes.u8(b, offset + 1, vcrc >>> 8 & 0xFF);
    }

    private static int[] vcrcTable() {
        int[] table = new int[256];
        for (int n = 0; n < 256; n++) {
            int c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? VCRC_POLYNOMIAL_REFLECTED ^ c >>> 1 : c >>> 1;
            }
            table[n] = c;
        }
        return table;
    }
}
