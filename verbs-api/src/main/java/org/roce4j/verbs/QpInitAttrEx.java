package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link Pd#createQpEx} needs: {@code struct ibv_qp_init_attr_ex} with {@code comp_mask}
 * {@code IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS}: the attributes of an ordinary QP and
 * the operations its {@code ibv_wr_*} builder will post.
 *
 * @param base     the attributes {@code ibv_create_qp} takes
 * @param sendOps  the {@code send_ops_flags}: which {@code ibv_wr_*} operations the QP may use
 */
public record QpInitAttrEx(QpInitAttr base, Set<SendOpsFlag> sendOps) {
    /** Requires both (NullPointerException); the set is copied. */
    public QpInitAttrEx {
        Objects.requireNonNull(base, "base");
        sendOps = sendOps.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(sendOps));
    }

    /**
     * {@return extended attributes over {@code base} with these operations}
     *
     * @param base    the ordinary attributes
     * @param sendOps the operations
     */
    public static QpInitAttrEx of(QpInitAttr base, SendOpsFlag... sendOps) {
        Set<SendOpsFlag> set = EnumSet.noneOf(SendOpsFlag.class);
        set.addAll(java.util.List.of(sendOps));
        return new QpInitAttrEx(base, set);
    }
}
