package org.roce4j.verbs;

/** {@code enum ibv_event_type}, same names and order, with {@code ibv_event_type_str}'s wording. */
public enum AsyncEventType {
    CQ_ERR("CQ error"),
    QP_FATAL("local work queue catastrophic error"),
    QP_REQ_ERR("invalid request local work queue error"),
    QP_ACCESS_ERR("local access violation work queue error"),
    COMM_EST("communication established"),
    SQ_DRAINED("send queue drained"),
    PATH_MIG("path migrated"),
    PATH_MIG_ERR("path migration request error"),
    DEVICE_FATAL("local catastrophic error"),
    PORT_ACTIVE("port active"),
    PORT_ERR("port error"),
    LID_CHANGE("LID change"),
    PKEY_CHANGE("P_Key change"),
    SM_CHANGE("SM change"),
    SRQ_ERR("SRQ catastrophic error"),
    SRQ_LIMIT_REACHED("SRQ limit reached"),
    QP_LAST_WQE_REACHED("last WQE reached"),
    CLIENT_REREGISTER("client reregistration"),
    GID_CHANGE("GID table change");

    private final String description;

    AsyncEventType(String description) {
        this.description = description;
    }

    public String describe() {
        return description;
    }
}
