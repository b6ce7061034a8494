package org.roce4j.verbs;

/** Transport service of a queue pair: {@code enum ibv_qp_type} (the three RoCEv2 carries here). */
public enum QpType {
    /** {@code IBV_QPT_RC}: reliable connected. */
    RC(2),
    /** {@code IBV_QPT_UC}: unreliable connected. */
    UC(3),
    /** {@code IBV_QPT_UD}: unreliable datagram. */
    UD(4);

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_QPT_*} value} */
    public int value() {
        return value;
    }
}
