package org.roce4j.verbs;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import static org.roce4j.verbs.QpAttrMask.ACCESS_FLAGS;
import static org.roce4j.verbs.QpAttrMask.ALT_PATH;
import static org.roce4j.verbs.QpAttrMask.AV;
import static org.roce4j.verbs.QpAttrMask.CUR_STATE;
import static org.roce4j.verbs.QpAttrMask.DEST_QPN;
import static org.roce4j.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static org.roce4j.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.roce4j.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.roce4j.verbs.QpAttrMask.MIN_RNR_TIMER;
import static org.roce4j.verbs.QpAttrMask.PATH_MIG_STATE;
import static org.roce4j.verbs.QpAttrMask.PATH_MTU;
import static org.roce4j.verbs.QpAttrMask.PKEY_INDEX;
import static org.roce4j.verbs.QpAttrMask.PORT;
import static org.roce4j.verbs.QpAttrMask.QKEY;
import static org.roce4j.verbs.QpAttrMask.RETRY_CNT;
import static org.roce4j.verbs.QpAttrMask.RNR_RETRY;
import static org.roce4j.verbs.QpAttrMask.RQ_PSN;
import static org.roce4j.verbs.QpAttrMask.SQ_PSN;
import static org.roce4j.verbs.QpAttrMask.STATE;
import static org.roce4j.verbs.QpAttrMask.TIMEOUT;
import static org.roce4j.verbs.QpState.ERR;
import static org.roce4j.verbs.QpState.INIT;
import static org.roce4j.verbs.QpState.RESET;
import static org.roce4j.verbs.QpState.RTR;
import static org.roce4j.verbs.QpState.RTS;
import static org.roce4j.verbs.QpState.SQD;
import static org.roce4j.verbs.QpState.SQE;
import static org.roce4j.verbs.QpType.RC;
import static org.roce4j.verbs.QpType.UC;
import static org.roce4j.verbs.QpType.UD;

/**
 * The one table of legal queue pair transitions (IBTA §10.3.1, figure 124 and the "QP/EE attributes"
 * tables of §11.2.5.3): for each current state, next state and QP type, the attributes a modify
 * must carry and those it may carry. It is the table Linux checks in {@code ib_modify_qp_is_ok}, so
 * an emulated modify fails exactly where the kernel returns EINVAL. Backends, the API and the tests
 * all read it; nobody keeps a second copy.
 */
public final class QpTransitions {
    /**
     * Attributes of one transition for one QP type.
     *
     * @param required the attributes the modify must give
     * @param optional the attributes it may give
     */
    public record Attributes(Set<QpAttrMask> required, Set<QpAttrMask> optional) {
        /** Copies both sets, unmodifiable. */
        public Attributes {
            required = Set.copyOf(required);
            optional = Set.copyOf(optional);
        }
    }

    private static final Map<QpState, Map<QpState, Map<QpType, Attributes>>> TABLE = new EnumMap<>(QpState.class);

    static {
        // Every state may go to RESET with nothing but the state, and every state but RESET to ERR: Linux's
        // qp_state_table (drivers/infiniband/core/verbs.c, what ib_modify_qp_is_ok reads for every device)
        // has no RESET -> ERR entry, so the kernel answers EINVAL there whatever the device; a QP that never
        // left RESET has no work to flush.
        for (QpState from : QpState.values()) {
            allow(from, RESET, all(none(), none()));
            if (from != RESET) {
                allow(from, ERR, all(none(), none()));
            }
        }
        allow(RESET, INIT, Map.of(
                UD, attrs(EnumSet.of(PKEY_INDEX, PORT, QKEY), none()),
                UC, attrs(EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS), none()),
                RC, attrs(EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS), none())));
        allow(INIT, INIT, Map.of(
                UD, attrs(none(), EnumSet.of(PKEY_INDEX, PORT, QKEY)),
                UC, attrs(none(), EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS)),
                RC, attrs(none(), EnumSet.of(PKEY_INDEX, PORT, ACCESS_FLAGS))));
        allow(INIT, RTR, Map.of(
                UD, attrs(none(), EnumSet.of(PKEY_INDEX, QKEY)),
                UC, attrs(EnumSet.of(AV, PATH_MTU, DEST_QPN, RQ_PSN), EnumSet.of(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX)),
                RC, attrs(EnumSet.of(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
                        EnumSet.of(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX))));
        allow(RTR, RTS, Map.of(
                UD, attrs(EnumSet.of(SQ_PSN), EnumSet.of(CUR_STATE, QKEY)),
                UC, attrs(EnumSet.of(SQ_PSN), EnumSet.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE)),
                RC, attrs(EnumSet.of(TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC),
                        EnumSet.of(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE))));
        Map<QpType, Attributes> toRts = Map.of(
                UD, attrs(none(), EnumSet.of(CUR_STATE, QKEY)),
                UC, attrs(none(), EnumSet.of(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE)),
                RC, attrs(none(), EnumSet.of(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER)));
        allow(RTS, RTS, toRts);
        allow(SQD, RTS, toRts);
        allow(RTS, SQD, all(none(), EnumSet.of(EN_SQD_ASYNC_NOTIFY)));
        allow(SQD, SQD, Map.of(
                UD, attrs(none(), EnumSet.of(PKEY_INDEX, QKEY)),
                UC, attrs(none(), EnumSet.of(AV, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, PATH_MIG_STATE)),
                RC, attrs(none(), EnumSet.of(PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC,
                        MAX_DEST_RD_ATOMIC, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER, PATH_MIG_STATE))));
        // IBTA 10.3.1: only unreliable services have the SQE state, and leave it for RTS.
        allow(SQE, RTS, Map.of(
                UD, attrs(none(), EnumSet.of(CUR_STATE, QKEY)),
                UC, attrs(none(), EnumSet.of(CUR_STATE, ACCESS_FLAGS))));
    }

    private QpTransitions() {
    }

    /**
     * {@return the attributes of the transition {@code from → to} for a QP type, or null when that
     * transition does not exist for that type}
     *
     * @param type the QP type
     * @param from the current state
     * @param to   the target state
     */
    public static Attributes attributes(QpType type, QpState from, QpState to) {
        Map<QpState, Map<QpType, Attributes>> row = TABLE.get(from);
        Map<QpType, Attributes> cell = row == null ? null : row.get(to);
        return cell == null ? null : cell.get(type);
    }

    /**
     * {@return whether a modify with this mask is legal from {@code current}, as {@code ib_modify_qp_is_ok}}:
     * the target state is {@code target} when the mask has STATE, else the current state; every
     * required attribute must be in the mask and nothing outside required ∪ optional ∪ STATE.
     *
     * @param type    the QP type
     * @param current the QP's state
     * @param target  the state asked for ({@code attr.qpState()})
     * @param mask    the attributes given
     */
    public static boolean isLegal(QpType type, QpState current, QpState target, Set<QpAttrMask> mask) {
        // IBTA 11.2.5.3 (and the kernel): CUR_STATE may only be given from RTR, RTS, SQD or SQE.
        if (mask.contains(CUR_STATE) && !EnumSet.of(RTR, RTS, SQD, SQE).contains(current)) {
            return false;
        }
        QpState to = mask.contains(STATE) ? target : current;
        Attributes attributes = attributes(type, current, to);
        if (attributes == null) {
            return false;
        }
        if (!mask.containsAll(attributes.required())) {
            return false;
        }
        for (QpAttrMask m : mask) {
            if (m != STATE && !attributes.required().contains(m) && !attributes.optional().contains(m)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Checks a modify, throwing what libibverbs returns for an illegal one: EINVAL, with the missing or
     * unexpected attributes named.
     *
     * @param type    the QP type
     * @param current the QP's state
     * @param target  the state asked for
     * @param mask    the attributes given
     * @throws VerbsException EINVAL when the modify is not legal
     */
    public static void check(QpType type, QpState current, QpState target, Set<QpAttrMask> mask) {
        if (isLegal(type, current, target, mask)) {
            return;
        }
        QpState to = mask.contains(STATE) ? target : current;
        Attributes attributes = attributes(type, current, to);
        String why;
        if (mask.contains(CUR_STATE) && !EnumSet.of(RTR, RTS, SQD, SQE).contains(current)) {
            why = "CUR_STATE may only be given from RTR, RTS, SQD or SQE";
        } else if (attributes == null) {
            why = "no transition " + current + " -> " + to + " for " + type;
        } else {
            EnumSet<QpAttrMask> missing = EnumSet.noneOf(QpAttrMask.class);
            missing.addAll(attributes.required());
            missing.removeAll(mask);
            EnumSet<QpAttrMask> extra = EnumSet.noneOf(QpAttrMask.class);
            extra.addAll(mask);
            extra.remove(STATE);
            extra.removeAll(attributes.required());
            extra.removeAll(attributes.optional());
            why = type + " " + current + " -> " + to + ": missing " + missing + ", not allowed " + extra;
        }
        throw new VerbsException(Errno.EINVAL, "ibv_modify_qp: " + why);
    }

    private static void allow(QpState from, QpState to, Map<QpType, Attributes> byType) {
        TABLE.computeIfAbsent(from, f -> new EnumMap<>(QpState.class)).put(to, byType);
    }

    private static Map<QpType, Attributes> all(Set<QpAttrMask> required, Set<QpAttrMask> optional) {
        Attributes attributes = attrs(required, optional);
        return Map.of(UD, attributes, UC, attributes, RC, attributes);
    }

    private static Attributes attrs(Set<QpAttrMask> required, Set<QpAttrMask> optional) {
        return new Attributes(required, optional);
    }

    private static EnumSet<QpAttrMask> none() {
        return EnumSet.noneOf(QpAttrMask.class);
    }
}
