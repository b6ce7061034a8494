package org.roce4j.verbs;

/**
 * What a GID table entry addresses: {@code enum ibv_gid_type}, in its order ({@link #ordinal()} is the C value).
 */
public enum GidType {
    /** {@code IBV_GID_TYPE_IB}: an InfiniBand port's GID. */
    IB,
    /** {@code IBV_GID_TYPE_ROCE_V1}: RoCE over Ethernet (EtherType 0x8915). */
    ROCE_V1,
    /** {@code IBV_GID_TYPE_ROCE_V2}: RoCE over UDP/IP, port 4791; every GID of Soft-RoCE and of roce4j's emulator. */
    ROCE_V2;

    /**
     * {@return the type with this {@code ibv_gid_type} value}
     *
     * @param value the C value
     * @throws IllegalArgumentException for a value libibverbs does not define
     */
    public static GidType of(int value) {
        if (value < 0 || value >= values().length) {
            throw new IllegalArgumentException("no ibv_gid_type " + value);
        }
        return values()[value];
    }
}
