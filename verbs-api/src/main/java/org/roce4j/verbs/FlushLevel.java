package org.roce4j.verbs;

/**
 * What a FLUSH covers (IBTA 1.5 9.4.8, the FETH's selectivity level): {@code enum ibv_selectivity_level} of
 * rdma-core 45.
 */
public enum FlushLevel {
    /** {@code IBV_FLUSH_RANGE}: the bytes from the address for the length, which must lie inside the region. */
    RANGE(0),
    /** {@code IBV_FLUSH_MR}: the whole region the rkey names; the address and the length are ignored. */
    MR(1);

    private final int value;

    FlushLevel(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_FLUSH_*} value: the FETH's selectivity level field} */
    public int value() {
        return value;
    }
}
