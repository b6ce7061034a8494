package org.roce4j.verbs;

/** A port's state and limits: the fields of {@code struct ibv_port_attr} a RoCE user reads. */
public record PortAttr(
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTblLen,
        int portCapFlags,
        long maxMsgSz,
        int pkeyTblLen,
        int lid,
        int smLid,
        int activeWidth,
        int activeSpeed,
        int physState,
        LinkLayer linkLayer) {

    /** {@code enum ibv_port_state}. */
    public enum PortState {
        NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER
    }

    /** {@code IBV_LINK_LAYER_*}. */
    public enum LinkLayer {
        UNSPECIFIED, INFINIBAND, ETHERNET
    }
}
