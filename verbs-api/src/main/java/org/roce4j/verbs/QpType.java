package org.roce4j.verbs;

/** Transport service of a queue pair: {@code enum ibv_qp_type} (the three RoCEv2 carries here). */
public enum QpType {
    RC(2),
    UC(3),
    UD(4);

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** The {@code IBV_QPT_*} value. */
    public int value() {
        return value;
    }
}
