package org.roce4j.wire;

/**
 * The 8-bit AETH syndrome (IBTA Vol. 1 §9.3.6, table 42): bit 7 reserved, bits 6-5 the type
 * (00 ACK, 01 RNR NAK, 10 reserved, 11 NAK), bits 4-0 the credit count, RNR timer or NAK code.
 */
public sealed interface AethSyndrome {
    /** The syndrome byte. */
    int encode();

    /** Parses any syndrome byte; never throws. */
    static AethSyndrome decode(int syndrome) {
        int value = syndrome & 0x1F;
        if (isAck(syndrome)) {
            return new Ack(value);
        }
        if ((syndrome & 0x80) != 0) {
            return new Reserved(syndrome & 0xFF);
        }
        return switch (syndrome >>> 5 & 0x3) {
            case 1 -> new RnrNak(value);
            case 3 -> new Nak(value);
            default -> new Reserved(syndrome & 0xFF);
        };
    }

    /**
     * Whether a syndrome byte is an ACK (reserved bit clear, type 00), without decoding it into a
     * record: the test a requester makes for every acknowledgement on its hot path.
     */
    static boolean isAck(int syndrome) {
        return (syndrome & 0xE0) == 0;
    }

    /** Whether a syndrome byte is an RNR NAK (reserved bit clear, type 01). */
    static boolean isRnrNak(int syndrome) {
        return (syndrome & 0xE0) == 1 << 5;
    }

    /**
     * The syndrome byte of an ACK with {@code creditCount} (0-31; 31 is "no credit information"),
     * without a record: what a responder writes for every acknowledgement on its hot path.
     */
    static int ack(int creditCount) {
        return creditCount & 0x1F;
    }

    /** The syndrome byte of an RNR NAK with a 5-bit timer code (IBTA table 45), without a record. */
    static int rnrNak(int timerCode) {
        return 1 << 5 | timerCode & 0x1F; // type 01
    }

    /** The syndrome byte of a NAK with {@code code}, without a record. */
    static int nak(NakCode code) {
        return nak(code.code());
    }

    private static int nak(int value) {
        return 3 << 5 | value & 0x1F; // type 11
    }

    /**
     * ACK with the end-to-end credit count (§9.7.7.2.5); 31 means "invalid", i.e. the responder
     * does not use end-to-end flow control.
     */
    record Ack(int creditCount) implements AethSyndrome {
        /** Credit count meaning "no credit information" (IBTA table 43, value 11111b). */
        public static final int INVALID_CREDIT_COUNT = 31;

        public Ack {
            Bytes.requireRange("credit count", creditCount, 0, 31);
        }

        @Override
        public int encode() {
            return ack(creditCount);
        }
    }

    /** Receiver not ready: the requester waits {@link #delayNanos()} and retries (§9.7.5.2.8). */
    record RnrNak(int timerCode) implements AethSyndrome {
        /** IBTA table 45: the RNR NAK timer field, in microseconds, indexed by its 5-bit code. */
        private static final long[] DELAY_MICROS = {
            655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920,
            2_560, 3_840, 5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920,
            122_880, 163_840, 245_760, 327_680, 491_520
        };

        public RnrNak {
            Bytes.requireRange("RNR timer code", timerCode, 0, 31);
        }

        @Override
        public int encode() {
            return rnrNak(timerCode);
        }

        /** The minimum time the requester must wait before retrying. */
        public long delayNanos() {
            return delayNanosOf(timerCode);
        }

        /** The RNR delay a 5-bit timer code stands for (IBTA table 45). */
        public static long delayNanosOf(int timerCode) {
            return DELAY_MICROS[timerCode & 0x1F] * 1_000L;
        }
    }

    /** Negative acknowledgement with a NAK code; codes 5-31 are reserved (§9.7.5.2.2). */
    record Nak(int value) implements AethSyndrome {
        public Nak {
            Bytes.requireRange("NAK code", value, 0, 31);
        }

        public Nak(NakCode code) {
            this(code.code());
        }

        /** The NAK code, or null when the value is reserved. */
        public NakCode code() {
            return NakCode.lookup(value);
        }

        @Override
        public int encode() {
            return AethSyndrome.nak(value);
        }
    }

    /** A syndrome with the reserved type 10b or the reserved bit 7 set. */
    record Reserved(int syndrome) implements AethSyndrome {
        @Override
        public int encode() {
            return syndrome;
        }
    }
}
