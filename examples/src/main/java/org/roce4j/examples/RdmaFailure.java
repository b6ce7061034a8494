package org.roce4j.examples;

/** An RDMA operation of an example did not complete successfully. */
public final class RdmaFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the failure.
     *
     * @param message what failed
     */
    public RdmaFailure(String message) {
        super(message);
    }
}
