package org.roce4j.wire;

/** The NAK codes of an AETH syndrome (IBTA Vol. 1 §9.7.5.2.2, table 44). */
public enum NakCode {
    PSN_SEQUENCE_ERROR(0, "PSN Sequence Error"),
    INVALID_REQUEST(1, "Invalid Request"),
    REMOTE_ACCESS_ERROR(2, "Remote Access Error"),
    REMOTE_OPERATIONAL_ERROR(3, "Remote Operational Error"),
    INVALID_RD_REQUEST(4, "Invalid RD Request");

    private static final NakCode[] BY_CODE = values();

    private final int code;
    private final String description;

    NakCode(int code, String description) {
        this.code = code;
        this.description = description;
    }

    public int code() {
        return code;
    }

    public String description() {
        return description;
    }

    /** The NAK code with value {@code code}, or null for the reserved values 5-31. */
    public static NakCode lookup(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
