package org.roce4j.verbs;

/**
 * A port's state and limits: the fields of {@code struct ibv_port_attr} a RoCE user reads, as
 * {@link Context#queryPort(int)} ({@code ibv_query_port}) returns them.
 *
 * @param state        the logical port state ({@code state})
 * @param maxMtu       the largest MTU the port supports ({@code max_mtu})
 * @param activeMtu    the MTU in use: the largest path MTU, what UD uses ({@code active_mtu})
 * @param gidTblLen    the GID table's length ({@code gid_tbl_len})
 * @param portCapFlags capability bits ({@code port_cap_flags})
 * @param maxMsgSz     the largest message, in bytes ({@code max_msg_sz})
 * @param pkeyTblLen   the P_Key table's length ({@code pkey_tbl_len})
 * @param lid          the base LID (0 on RoCE)
 * @param smLid        the subnet manager's LID (0 on RoCE)
 * @param activeWidth  the link width ({@code active_width}, IBTA encoding)
 * @param activeSpeed  the link speed ({@code active_speed}, IBTA encoding)
 * @param physState    the physical port state ({@code phys_state}, 5 = LinkUp)
 * @param linkLayer    InfiniBand or Ethernet (RoCE) ({@code link_layer})
 */
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

    /** The logical port state: {@code enum ibv_port_state}, same order and values. */
    public enum PortState {
        /** {@code IBV_PORT_NOP}: no state change. */
        NOP,
        /** {@code IBV_PORT_DOWN}: the link is down. */
        DOWN,
        /** {@code IBV_PORT_INIT}: the link is up, the port not configured. */
        INIT,
        /** {@code IBV_PORT_ARMED}: configured, not yet active. */
        ARMED,
        /** {@code IBV_PORT_ACTIVE}: ready to carry traffic. */
        ACTIVE,
        /** {@code IBV_PORT_ACTIVE_DEFER}: active, a state change deferred. */
        ACTIVE_DEFER
    }

    /** The port's link layer: {@code IBV_LINK_LAYER_*}. */
    public enum LinkLayer {
        /** {@code IBV_LINK_LAYER_UNSPECIFIED}: old kernels; InfiniBand. */
        UNSPECIFIED,
        /** {@code IBV_LINK_LAYER_INFINIBAND}. */
        INFINIBAND,
        /** {@code IBV_LINK_LAYER_ETHERNET}: RoCE. */
        ETHERNET
    }
}
