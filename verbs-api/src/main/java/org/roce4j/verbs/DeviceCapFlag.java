package org.roce4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a device says it can do: {@code enum ibv_device_cap_flags}, the bits of {@code device_cap_flags}
 * in {@code struct ibv_device_attr} (the kernel's {@code IB_DEVICE_*} of the same values).
 */
public enum DeviceCapFlag {
    /** {@code IBV_DEVICE_RESIZE_MAX_WR}: a QP's max_send_wr/max_recv_wr can be changed by modify. */
    RESIZE_MAX_WR(1),
    /** {@code IBV_DEVICE_BAD_PKEY_CNTR}: counts packets with a bad P_Key. */
    BAD_PKEY_CNTR(1 << 1),
    /** {@code IBV_DEVICE_BAD_QKEY_CNTR}: counts packets with a bad Q_Key. */
    BAD_QKEY_CNTR(1 << 2),
    /** {@code IBV_DEVICE_RAW_MULTI}: raw packet multicast. */
    RAW_MULTI(1 << 3),
    /** {@code IBV_DEVICE_AUTO_PATH_MIG}: automatic path migration. */
    AUTO_PATH_MIG(1 << 4),
    /** {@code IBV_DEVICE_CHANGE_PHY_PORT}: a QP's port can change in SQD -> RTS. */
    CHANGE_PHY_PORT(1 << 5),
    /** {@code IBV_DEVICE_UD_AV_PORT_ENFORCE}: an address vector's port is checked. */
    UD_AV_PORT_ENFORCE(1 << 6),
    /** {@code IBV_DEVICE_CURR_QP_STATE_MOD}: modify takes the current state as an attribute. */
    CURR_QP_STATE_MOD(1 << 7),
    /** {@code IBV_DEVICE_SHUTDOWN_PORT}: a port can be shut down. */
    SHUTDOWN_PORT(1 << 8),
    /** {@code IBV_DEVICE_INIT_TYPE}: InitType in port info. */
    INIT_TYPE(1 << 9),
    /** {@code IBV_DEVICE_PORT_ACTIVE_EVENT}: raises IBV_EVENT_PORT_ACTIVE. */
    PORT_ACTIVE_EVENT(1 << 10),
    /** {@code IBV_DEVICE_SYS_IMAGE_GUID}: reports a system image GUID. */
    SYS_IMAGE_GUID(1 << 11),
    /** {@code IBV_DEVICE_RC_RNR_NAK_GEN}: an RC responder without a receive WQE sends an RNR NAK. */
    RC_RNR_NAK_GEN(1 << 12),
    /** {@code IBV_DEVICE_SRQ_RESIZE}: an SRQ can be resized (ibv_modify_srq with IBV_SRQ_MAX_WR). */
    SRQ_RESIZE(1 << 13),
    /** {@code IBV_DEVICE_N_NOTIFY_CQ}: notification after N completions. */
    N_NOTIFY_CQ(1 << 14),
    /** {@code IBV_DEVICE_MEM_WINDOW}: memory windows. */
    MEM_WINDOW(1 << 17),
    /** {@code IBV_DEVICE_UD_IP_CSUM}: IP checksum offload on UD. */
    UD_IP_CSUM(1 << 18),
    /** {@code IBV_DEVICE_XRC}: extended reliable connected transport. */
    XRC(1 << 20),
    /** {@code IBV_DEVICE_MEM_MGT_EXTENSIONS}: fast registration, local invalidation of such regions. */
    MEM_MGT_EXTENSIONS(1 << 21),
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2A}: type 2A memory windows. */
    MEM_WINDOW_TYPE_2A(1 << 23),
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2B}: type 2B memory windows. */
    MEM_WINDOW_TYPE_2B(1 << 24),
    /** {@code IBV_DEVICE_RC_IP_CSUM}: IP checksum offload on RC. */
    RC_IP_CSUM(1 << 25),
    /** {@code IBV_DEVICE_RAW_IP_CSUM}: IP checksum offload on raw packet QPs. */
    RAW_IP_CSUM(1 << 26),
    /** {@code IBV_DEVICE_MANAGED_FLOW_STEERING}: flow steering. */
    MANAGED_FLOW_STEERING(1 << 29);

    private final int bit;

    DeviceCapFlag(int bit) {
        this.bit = bit;
    }

    /** {@return the {@code IBV_DEVICE_*} bit} */
    public int bit() {
        return bit;
    }

    /**
     * {@return the flags set in a {@code device_cap_flags} word; bits no constant names are left out}
     *
     * @param bits the word, as {@code ibv_query_device} gives it
     */
    public static Set<DeviceCapFlag> of(int bits) {
        EnumSet<DeviceCapFlag> flags = EnumSet.noneOf(DeviceCapFlag.class);
        for (DeviceCapFlag flag : values()) {
            if ((bits & flag.bit) != 0) {
                flags.add(flag);
            }
        }
        return flags;
    }

    /**
     * {@return the {@code device_cap_flags} word of these flags}
     *
     * @param flags the flags
     */
    public static int bits(Set<DeviceCapFlag> flags) {
        int bits = 0;
        for (DeviceCapFlag flag : flags) {
            bits |= flag.bit;
        }
        return bits;
    }
}
