package org.roce4j.verbs;

/**
 * Where a FLUSH makes earlier writes land (IBTA 1.5 9.4.8, the FETH's placement type): {@code enum
 * ibv_placement_type} of rdma-core 45 ({@code IBV_FLUSH_GLOBAL}, {@code IBV_FLUSH_PERSISTENT}). The target
 * region must have been registered with the matching {@link AccessFlag} ({@link #access()}), else the
 * responder answers with a remote access error (rxe_resp.c check_rkey looks the rkey up with that access).
 */
public enum FlushType {
    /** {@code IBV_FLUSH_GLOBAL}: the data is globally visible (placed past every cache of the responder). */
    GLOBAL(1, AccessFlag.FLUSH_GLOBAL),
    /** {@code IBV_FLUSH_PERSISTENT}: the data is in the persistence domain (persistent memory). */
    PERSISTENT(1 << 1, AccessFlag.FLUSH_PERSISTENT);

    private final int bit;
    private final AccessFlag access;

    FlushType(int bit, AccessFlag access) {
        this.bit = bit;
        this.access = access;
    }

    /** {@return the {@code IBV_FLUSH_*} bit: the FETH's placement type field} */
    public int bit() {
        return bit;
    }

    /** {@return the right the target region needs for this placement type} */
    public AccessFlag access() {
        return access;
    }
}
