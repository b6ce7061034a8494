package org.roce4j.cm;

/**
 * How {@link CmId#joinMulticast(java.net.InetSocketAddress, MulticastJoinFlag, Object)} joins a group:
 * {@code enum rdma_cm_mc_join_flags} of {@code rdma_join_multicast_ex}, with librdmacm's values.
 */
public enum MulticastJoinFlag {
    /**
     * {@code RDMA_MC_JOIN_FLAG_FULLMEMBER}: send and receive. On RoCEv2 the kernel joins the IP group on
     * the id's interface (an IGMP report) and librdmacm attaches the id's QP to the group when the
     * MULTICAST_JOIN event is read.
     */
    FULLMEMBER(0),
    /**
     * {@code RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER}: send only. No IGMP join (cma.c
     * {@code cma_iboe_join_multicast}) and no QP attachment (librdmacm {@code ucma_process_join}); the
     * MULTICAST_JOIN event still gives the address vector to send to the group with.
     */
    SENDONLY_FULLMEMBER(1);

    private final int value;

    MulticastJoinFlag(int value) {
        this.value = value;
    }

    /** {@return librdmacm's value} */
    public int value() {
        return value;
    }
}
