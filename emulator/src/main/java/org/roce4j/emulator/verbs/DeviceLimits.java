package org.roce4j.emulator.verbs;

import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.PortAttr;

/**
 * The limits the emulated device reports and enforces: Linux rxe's defaults from
 * {@code rxe_param.h} ({@code enum rxe_device_param}, {@code enum rxe_port_param}), so that a program
 * sees the same numbers from {@code ibv_devinfo -v} on the emulator as on Soft-RoCE.
 */
public final class DeviceLimits {
    public static final int MAX_QP = 0x10000;
    static final int MAX_QP_WR = 0x4000;
    static final int MAX_SGE = 32;
    static final int MAX_SGE_RD = 32;
    static final int MAX_CQ = 16384;
    /** rxe: {@code (1 << RXE_MAX_LOG_CQE) - 1} with RXE_MAX_LOG_CQE = 15. */
    static final int MAX_CQE = (1 << 15) - 1;
    public static final int MAX_MR = 256 * 1024;
    static final int MAX_PD = 0x7ffc;
    static final int MAX_QP_RD_ATOM = 128;
    static final int MAX_QP_INIT_RD_ATOM = 128;
    static final int MAX_RES_RD_ATOM = 0x3f000;
    static final int MAX_AH = (1 << 15) - 1;
    static final int MAX_SRQ = 960;
    static final int MAX_SRQ_WR = 0x4000;
    static final int MAX_SRQ_SGE = 27;
    static final int MAX_PKEYS = 64;
    static final int LOCAL_CA_ACK_DELAY = 15;
    static final int MAX_INLINE_DATA = 400;
    /** rxe: RXE_PAGE_SIZE_CAP. */
    static final long PAGE_SIZE_CAP = 0xfffff000L;
    /** rxe: RXE_MAX_MR_SIZE = -1ull, i.e. 2^64 - 1 read as unsigned. */
    static final long MAX_MR_SIZE = -1L;
    /** rxe: RXE_VENDOR_ID in current kernels (ibv_devinfo prints 0xffffff). */
    static final int VENDOR_ID = 0xFFFFFF;

    /** rxe: RXE_PORT_GID_TBL_LEN; entries past the populated ones are empty. */
    public static final int GID_TABLE_LENGTH = 1024;
    /** rxe: RXE_PORT_MAX_MSG_SZ. */
    static final long MAX_MSG_SIZE = 0x800000;
    static final int PKEY_TABLE_LENGTH = 64;
    /** IB_PORT_CM_SUP | IB_PORT_IP_BASED_GIDS, what a RoCE port reports. */
    static final int PORT_CAP_FLAGS = 1 << 16 | 1 << 26;
    /** IB_WIDTH_1X. */
    static final int ACTIVE_WIDTH = 1;
    /** IB_SPEED_SDR. */
    static final int ACTIVE_SPEED = 1;
    /** IB_PORT_PHYS_STATE_LINK_UP, as an Ethernet port that is up. */
    static final int PHYS_STATE_LINK_UP = 5;
    /** Largest RDMA message (IBTA 9.4: 2^31 bytes). */
    public static final long MAX_MESSAGE_LENGTH = 1L << 31;
    /** The only port (rxe: RXE_NUM_PORT). */
    public static final int PORT = 1;

    /** rxe: RXE_MAX_PKT_PER_ACK, the requester asks for an ACK at least this often. */
    public static final int MAX_PACKETS_PER_ACK = 64;
    /** rxe: RXE_MAX_UNACKED_PSNS, the requester's window. */
    public static final int MAX_UNACKED_PSNS = 128;

    private DeviceLimits() {
    }

    public static DeviceAttr deviceAttr(long nodeGuid) {
        return new DeviceAttr("0.0.0", nodeGuid, nodeGuid, MAX_MR_SIZE, PAGE_SIZE_CAP, VENDOR_ID, 0, 0,
                MAX_QP, MAX_QP_WR, MAX_SGE, MAX_SGE_RD, MAX_CQ, MAX_CQE, MAX_MR, MAX_PD,
                MAX_QP_RD_ATOM, MAX_QP_INIT_RD_ATOM, MAX_RES_RD_ATOM, DeviceAttr.AtomicCapability.HCA,
                0, MAX_AH, MAX_SRQ, MAX_SRQ_WR, MAX_SRQ_SGE, MAX_PKEYS, LOCAL_CA_ACK_DELAY, 1, MAX_INLINE_DATA);
    }

    public static PortAttr portAttr(Mtu activeMtu) {
        return new PortAttr(PortAttr.PortState.ACTIVE, Mtu.MTU_4096, activeMtu, GID_TABLE_LENGTH, PORT_CAP_FLAGS,
                MAX_MSG_SIZE, PKEY_TABLE_LENGTH, 0, 0, ACTIVE_WIDTH, ACTIVE_SPEED, PHYS_STATE_LINK_UP,
                PortAttr.LinkLayer.ETHERNET);
    }
}
