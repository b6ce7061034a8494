package org.roce4j.cm;

/**
 * How many bytes of private data each rdma_cm call can send: the IBTA message's private data field
 * (IBTA Vol. 1 12.6; Linux {@code IB_CM_*_PRIVATE_DATA_SIZE}) less rdma_cm's 36-byte IP header
 * ({@code struct cma_hdr}, Linux cma.c {@code cma_user_data_offset}), which the REQ and SIDR_REQ
 * of every port space but {@link PortSpace#IB} carry. More is EINVAL, as the kernel's
 * {@code ib_send_cm_req} / {@code cma_connect_ib} return.
 */
public final class PrivateDataLimits {
    /** The REQ's private data field. */
    public static final int REQ = 92;
    /** The REP's private data field ({@link CmId#accept} of a connected id). */
    public static final int REP = 196;
    /** The REJ's private data field ({@link CmId#reject}). */
    public static final int REJ = 148;
    /** The SIDR_REQ's private data field. */
    public static final int SIDR_REQ = 216;
    /** The SIDR_REP's private data field ({@link CmId#accept} of a UD id). */
    public static final int SIDR_REP = 136;
    /** rdma_cm's IP addressing header at the start of a REQ's or SIDR_REQ's private data. */
    public static final int CMA_HEADER = 36;

    private PrivateDataLimits() {
    }

    /**
     * {@return the most private data {@link CmId#connect} can send: 56 bytes for TCP (92 − 36),
     * 180 for UDP (216 − 36), 92 for IB}
     *
     * @param space the id's port space
     */
    public static int connect(PortSpace space) {
        int field = space.qpType() == org.roce4j.verbs.QpType.UD ? SIDR_REQ : REQ;
        return space == PortSpace.IB ? field : field - CMA_HEADER;
    }

    /**
     * {@return the most private data {@link CmId#accept} can send: the REP's 196 bytes, or the SIDR_REP's 136 for UD}
     *
     * @param space the id's port space
     */
    public static int accept(PortSpace space) {
        return space.qpType() == org.roce4j.verbs.QpType.UD ? SIDR_REP : REP;
    }
}
