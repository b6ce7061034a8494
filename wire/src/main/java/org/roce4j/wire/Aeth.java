package org.roce4j.wire;

/**
 * ACK Extended Transport Header (IBTA Vol. 1 §9.3.6): 8-bit syndrome, 24-bit message sequence
 * number. The syndrome is kept as its byte so that any AETH re-encodes exactly;
 * {@link #syndrome()} gives the typed view.
 */
public record Aeth(int syndromeByte, int msn) implements ExtensionHeader {
    public Aeth {
        Bytes.requireRange("syndrome", syndromeByte, 0, 0xFF);
        Bytes.require24("MSN", msn);
    }

    public Aeth(AethSyndrome syndrome, int msn) {
        this(syndrome.encode(), msn);
    }

    /** An ACK with the given credit count. */
    public static Aeth ack(int creditCount, int msn) {
        return new Aeth(new AethSyndrome.Ack(creditCount), msn);
    }

    /** An RNR NAK with the given 5-bit timer code. */
    public static Aeth rnrNak(int timerCode, int msn) {
        return new Aeth(new AethSyndrome.RnrNak(timerCode), msn);
    }

    /** A NAK with the given code. */
    public static Aeth nak(NakCode code, int msn) {
        return new Aeth(new AethSyndrome.Nak(code), msn);
    }

    static Aeth decode(byte[] b, int off) {
        return new Aeth(Bytes.u8(b, off), Bytes.u24(b, off + 1));
    }

    /** The typed syndrome. */
    public AethSyndrome syndrome() {
        return AethSyndrome.decode(syndromeByte);
    }

    @Override
    public HeaderType type() {
        return HeaderType.AETH;
    }

    @Override
    public void encode(byte[] b, int off) {
        write(b, off, syndromeByte, msn);
    }

    static void write(byte[] b, int off, int syndromeByte, int msn) {
        Bytes.u8(b, off, syndromeByte);
        Bytes.u24(b, off + 1, msn);
    }
}
