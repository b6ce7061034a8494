package org.roce4j.verbs;

/** The kind of a memory window: {@code enum ibv_mw_type}, same names and values. */
public enum MwType {
    /**
     * {@code IBV_MW_TYPE_1}: bound with {@link Qp#bindMw} ({@code ibv_bind_mw}); valid from allocation, usable
     * from any QP of its PD once bound, rebound at will; LOCAL_INV and SEND_WITH_INV cannot invalidate it
     * (IBTA o10-37.2.26).
     */
    TYPE_1(1),
    /**
     * {@code IBV_MW_TYPE_2} (type 2B): bound by a BIND_MW work request ({@link SendWr#bindMw}) to the QP that
     * posts it, and usable only through that QP; it must be invalidated (LOCAL_INV, SEND_WITH_INV) before it
     * can be bound again (IBTA o10-37.2.30).
     */
    TYPE_2(2);

    private final int value;

    MwType(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_MW_TYPE_*} value} */
    public int value() {
        return value;
    }

    /**
     * {@return the constant for an {@code IBV_MW_TYPE_*} value}
     *
     * @param value the numeric type
     * @throws IllegalArgumentException if there is no such type
     */
    public static MwType of(int value) {
        for (MwType type : values()) {
            if (type.value == value) {
                return type;
            }
        }
        throw new IllegalArgumentException("no ibv_mw_type " + value);
    }
}
