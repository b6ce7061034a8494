package org.roce4j.verbs;

/**
 * The type of an {@link AsyncEvent}: {@code enum ibv_event_type}, same names and order, with
 * {@code ibv_event_type_str}'s wording.
 */
public enum AsyncEventType {
    /** A CQ overran; the CQ is in error ({@code IBV_EVENT_CQ_ERR}). */
    CQ_ERR("CQ error"),
    /** A QP hit an error not tied to a work request and went to ERR ({@code IBV_EVENT_QP_FATAL}). */
    QP_FATAL("local work queue catastrophic error"),
    /** The responder of a QP detected an invalid request ({@code IBV_EVENT_QP_REQ_ERR}). */
    QP_REQ_ERR("invalid request local work queue error"),
    /** The responder of a QP detected a memory access violation ({@code IBV_EVENT_QP_ACCESS_ERR}). */
    QP_ACCESS_ERR("local access violation work queue error"),
    /** The first packet arrived on a QP in RTR ({@code IBV_EVENT_COMM_EST}). */
    COMM_EST("communication established"),
    /** A QP in SQD has no outstanding send work left ({@code IBV_EVENT_SQ_DRAINED}). */
    SQ_DRAINED("send queue drained"),
    /** A QP migrated to its alternate path ({@code IBV_EVENT_PATH_MIG}). */
    PATH_MIG("path migrated"),
    /** Migrating to the alternate path failed ({@code IBV_EVENT_PATH_MIG_ERR}). */
    PATH_MIG_ERR("path migration request error"),
    /** The device failed; every resource on it is unusable ({@code IBV_EVENT_DEVICE_FATAL}). */
    DEVICE_FATAL("local catastrophic error"),
    /** A port became active ({@code IBV_EVENT_PORT_ACTIVE}). */
    PORT_ACTIVE("port active"),
    /** A port left the active state ({@code IBV_EVENT_PORT_ERR}). */
    PORT_ERR("port error"),
    /** A port's LID changed ({@code IBV_EVENT_LID_CHANGE}). */
    LID_CHANGE("LID change"),
    /** A port's P_Key table changed ({@code IBV_EVENT_PKEY_CHANGE}). */
    PKEY_CHANGE("P_Key change"),
    /** The subnet manager of a port changed ({@code IBV_EVENT_SM_CHANGE}). */
    SM_CHANGE("SM change"),
    /** An SRQ failed ({@code IBV_EVENT_SRQ_ERR}). */
    SRQ_ERR("SRQ catastrophic error"),
    /** An armed SRQ fell below its limit; the limit is disarmed ({@code IBV_EVENT_SRQ_LIMIT_REACHED}). */
    SRQ_LIMIT_REACHED("SRQ limit reached"),
    /** A QP attached to an SRQ in ERR will take no more receive WQEs ({@code IBV_EVENT_QP_LAST_WQE_REACHED}). */
    QP_LAST_WQE_REACHED("last WQE reached"),
    /** The subnet manager asks clients to register again ({@code IBV_EVENT_CLIENT_REREGISTER}). */
    CLIENT_REREGISTER("client reregistration"),
    /** A port's GID table changed ({@code IBV_EVENT_GID_CHANGE}). */
    GID_CHANGE("GID table change");

    private final String description;

    AsyncEventType(String description) {
        this.description = description;
    }

    /** {@return what {@code ibv_event_type_str()} prints for this event} */
    public String describe() {
        return description;
    }
}
