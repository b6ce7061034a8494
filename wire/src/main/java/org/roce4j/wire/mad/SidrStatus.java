package org.roce4j.wire.mad;

import java.util.Optional;

/**
 * A SIDR_REP's status (IBTA Vol. 1 table 121), with Linux's names ({@code enum
 * ib_cm_sidr_status}, without {@code IB_SIDR_}).
 */
public enum SidrStatus {
    SUCCESS(0, "success"),
    /** No one serves the service ID (rdma_cm: nobody listens on the port). */
    UNSUPPORTED(1, "service ID not supported"),
    /** The service said no ({@code rdma_reject} of a UD id). */
    REJECT(2, "rejected by the service provider"),
    NO_QP(3, "no QP available"),
    REDIRECT(4, "redirect"),
    UNSUPPORTED_VERSION(5, "unsupported class version");

    private final int code;
    private final String description;

    SidrStatus(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** {@return IBTA's number, the SIDR_REP's status field} */
    public int code() {
        return code;
    }

    /** {@return what the status means, lower case} */
    public String description() {
        return description;
    }

    /**
     * {@return the status with this number, or empty for a reserved one}
     *
     * @param code the SIDR_REP's status field
     */
    public static Optional<SidrStatus> of(int code) {
        for (SidrStatus status : values()) {
            if (status.code == code) {
                return Optional.of(status);
            }
        }
        return Optional.empty();
    }
}
