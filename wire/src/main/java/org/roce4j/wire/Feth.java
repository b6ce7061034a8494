package org.roce4j.wire;

/**
 * FLUSH Extended Transport Header (IBTA 1.5 memory placement extensions; rxe's {@code rxe_feth}):
 * 26 reserved bits, a 2-bit selectivity level (bits 5-4) and a 4-bit placement type (bits 3-0).
 */
public record Feth(int selectivityLevel, int placementType) implements ExtensionHeader {
    public Feth {
        Bytes.requireRange("selectivity level", selectivityLevel, 0, 3);
        Bytes.requireRange("placement type", placementType, 0, 15);
    }

    static Feth decode(byte[] b, int off) {
        int bits = Bytes.i32(b, off);
        return new Feth(bits >>> 4 & 0x3, bits & 0xF);
    }

    @Override
    public HeaderType type() {
        return HeaderType.FETH;
    }

    @Override
    public void encode(byte[] b, int off) {
        write(b, off, selectivityLevel, placementType);
    }

    /** rxe_hdr.h feth_init: {@code (level << 4) & 0x30 | type & 0xF}, the other 26 bits zero. */
    static void write(byte[] b, int off, int selectivityLevel, int placementType) {
        Bytes.i32(b, off, (selectivityLevel << 4 & 0x30) | (placementType & 0xF));
    }
}
