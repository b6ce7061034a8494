package org.roce4j.wire;

/** Invalidate Extended Transport Header (IBTA §9.3.9): the R_Key the responder invalidates. */
public record Ieth(int rkey) implements ExtensionHeader {
    static Ieth decode(byte[] b, int off) {
        return new Ieth(Bytes.i32(b, off));
    }

    @Override
    public HeaderType type() {
        return HeaderType.IETH;
    }

    @Override
    public void encode(byte[] b, int off) {
        write(b, off, rkey);
    }

    static void write(byte[] b, int off, int rkey) {
        Bytes.i32(b, off, rkey);
    }
}
