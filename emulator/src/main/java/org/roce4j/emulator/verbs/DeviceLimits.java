package org.roce4j.emulator.verbs;

import java.util.Set;

import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.DeviceCapFlag;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.PortAttr;

/**
 * The limits one emulated device reports ({@code ibv_query_device}, {@code ibv_query_port}) and
 * enforces (ENOMEM when a table is full, EINVAL past a capacity). A device's limits come from its
 * profile ({@code DeviceProfile}); {@link #RXE} and {@link #RXE_6_1} hold Linux rxe's, so that a program sees the same
 * numbers from {@code ibv_devinfo -v} on the emulator as on Soft-RoCE.
 *
 * @param maxQp            ENOMEM past this many live QPs (rxe: RXE_MAX_QP)
 * @param maxQpWr          the largest max_send_wr / max_recv_wr (RXE_MAX_QP_WR)
 * @param maxSge           the largest max_send_sge / max_recv_sge (RXE_MAX_SGE)
 * @param maxSgeRd         reported only (RXE_MAX_SGE_RD)
 * @param maxCq            ENOMEM past this many live CQs (RXE_MAX_CQ)
 * @param maxCqe           the largest cqe a CQ may ask for (rxe: {@code (1 << RXE_MAX_LOG_CQE) - 1})
 * @param maxMr            ENOMEM past this many live MRs (RXE_MAX_MR)
 * @param maxPd            ENOMEM past this many live PDs (RXE_MAX_PD)
 * @param maxQpRdAtom      the largest max_dest_rd_atomic (RXE_MAX_QP_RD_ATOM)
 * @param maxQpInitRdAtom  the largest max_rd_atomic (RXE_MAX_QP_INIT_RD_ATOM)
 * @param maxResRdAtom     reported only (RXE_MAX_RES_RD_ATOM)
 * @param maxMw            reported only (RXE_MAX_MW)
 * @param maxMcastGrp      ENOMEM past this many multicast groups; 0: ibv_attach_mcast is EINVAL (RXE_MAX_MCAST_GRP)
 * @param maxMcastQpAttach ENOMEM past this many QPs in one group (RXE_MAX_MCAST_QP_ATTACH)
 * @param maxTotalMcastQpAttach ENOMEM past this many attachments in all (RXE_MAX_TOT_MCAST_QP_ATTACH)
 * @param maxAh            ENOMEM past this many live AHs (RXE_MAX_AH)
 * @param maxSrq           reported only (RXE_MAX_SRQ)
 * @param maxSrqWr         the largest SRQ max_wr (RXE_MAX_SRQ_WR)
 * @param maxSrqSge        the largest SRQ max_sge (RXE_MAX_SRQ_SGE)
 * @param maxPkeys         reported only (RXE_MAX_PKEYS)
 * @param localCaAckDelay  reported only (RXE_LOCAL_CA_ACK_DELAY)
 * @param maxInlineData    the largest max_inline_data (RXE_MAX_INLINE_DATA)
 * @param pageSizeCap      reported only (RXE_PAGE_SIZE_CAP)
 * @param maxMrSize        reported only, read as unsigned (RXE_MAX_MR_SIZE = -1ull)
 * @param vendorId         reported only (RXE_VENDOR_ID; ibv_devinfo prints 0xffffff on current kernels)
 * @param gidTableLength   the port's GID table length; entries past the populated ones are empty
 *                         (RXE_PORT_GID_TBL_LEN)
 * @param maxMsgSize       the port's max_msg_sz, reported only (RXE_PORT_MAX_MSG_SZ)
 * @param pkeyTableLength  the port's P_Key table length; a QP's pkey_index must be inside it
 *                         (RXE_PORT_PKEY_TBL_LEN)
 * @param portCapFlags     the port's capability flags
 * @param activeWidth      the port's active width (IB_WIDTH_* value)
 * @param activeSpeed      the port's active speed (IB_SPEED_* value)
 */
public record DeviceLimits(int maxQp, int maxQpWr, int maxSge, int maxSgeRd, int maxCq, int maxCqe, int maxMr,
                           int maxPd, int maxQpRdAtom, int maxQpInitRdAtom, int maxResRdAtom, int maxMw,
                           int maxMcastGrp, int maxMcastQpAttach, int maxTotalMcastQpAttach, int maxAh, int maxSrq,
                           int maxSrqWr, int maxSrqSge, int maxPkeys, int localCaAckDelay, int maxInlineData,
                           long pageSizeCap, long maxMrSize, int vendorId, int gidTableLength, long maxMsgSize,
                           int pkeyTableLength, int portCapFlags, int activeWidth, int activeSpeed) {

    /** IB_PORT_CM_SUP ({@code enum ib_port_capability_mask_bits}): what rxe's port reports. */
    private static final int ROCE_PORT_CAP_FLAGS = 1 << 16;
    /** rxe_param.h DEFAULT_MAX_VALUE: the size of most of rxe's object pools. */
    private static final int RXE_DEFAULT_MAX = 1 << 20;

    /**
     * Linux rxe's limits as {@code ibv_devinfo -v} shows them on kernel 6.12 (rxe_param.h,
     * {@code enum rxe_device_param} and {@code enum rxe_port_param}); {@code conformance/devinfo-twin-check}
     * compares them with rxe0's.
     */
    public static final DeviceLimits RXE = rxe(0x80000000L);
    /**
     * Kernel 6.1's rxe: as {@link #RXE} but the port's max_msg_sz is RXE_PORT_MAX_MSG_SZ 0x800000 (8 MiB),
     * which later kernels raised to 2^31. Only reported: a message's length is bounded by
     * {@link #MAX_MESSAGE_LENGTH} on every profile.
     */
    public static final DeviceLimits RXE_6_1 = rxe(0x800000L);
    /**
     * The default profile's: rxe 6.12's numbers, a soft RNIC's, whose tables are only memory (the default model
     * has every object rxe has, memory windows and multicast groups included).
     */
    public static final DeviceLimits DEFAULT = RXE;

    private static DeviceLimits rxe(long maxMsgSize) {
        return new DeviceLimits(
                RXE_DEFAULT_MAX - 16 /* RXE_MAX_QP: less RXE_MIN_QP_INDEX */, RXE_DEFAULT_MAX /* RXE_MAX_QP_WR */,
                32, 32, RXE_DEFAULT_MAX /* RXE_MAX_CQ */, (1 << 15) - 1, 524287 /* RXE_MAX_MR */,
                RXE_DEFAULT_MAX /* RXE_MAX_PD */, 128, 128, 0x3f000,
                524287 /* RXE_MAX_MW */, 8192 /* RXE_MAX_MCAST_GRP */, 56 /* RXE_MAX_MCAST_QP_ATTACH */,
                56 * 8192 /* RXE_MAX_TOT_MCAST_QP_ATTACH */,
                (1 << 15) - 1, 917503 /* RXE_MAX_SRQ: DEFAULT_MAX_VALUE - RXE_MIN_SRQ_INDEX */,
                RXE_DEFAULT_MAX /* RXE_MAX_SRQ_WR */, 27, 64, 15, 400,
                0xfffff000L, -1L, 0xFFFFFF, 1024, maxMsgSize,
                1 /* RXE_PORT_PKEY_TBL_LEN */, ROCE_PORT_CAP_FLAGS, 1 /* IB_WIDTH_1X */, 1 /* IB_SPEED_SDR */);
    }

    /**
     * Largest RDMA message. Not a device's choice: IBTA 9.4 bounds a message's length at 2^31
     * bytes on every device.
     */
    public static final long MAX_MESSAGE_LENGTH = 1L << 31;
    /** The only port: every profile models a one-port device (rxe: RXE_NUM_PORT). */
    public static final int PORT = 1;
    /** IB_PORT_PHYS_STATE_LINK_UP: the state of an Ethernet port that is up, not a limit. */
    private static final int PHYS_STATE_LINK_UP = 5;

    public DeviceLimits {
        if (maxQp < 1 || maxQp >= 0xFFFFFF - RandomKeySource.LOWEST_QPN) {
            // QPNs are base + slot in 24 bits (IBTA 9.2.4: the BTH DestQP field); 0, 1 (SMI, GSI) and
            // 0xFFFFFF (multicast) are never a slot's, and the random layout needs room to draw a base
            throw new IllegalArgumentException("max_qp " + maxQp + " does not fit the 24-bit QPN space");
        }
    }

    /**
     * What {@code ibv_query_device} answers for a device with node GUID {@code nodeGuid} that reports
     * {@code capFlags} ({@link DeviceCapabilities#of}).
     */
    public DeviceAttr deviceAttr(long nodeGuid, Set<DeviceCapFlag> capFlags) {
        return new DeviceAttr("0.0.0", nodeGuid, nodeGuid, maxMrSize, pageSizeCap, vendorId, 0, 0,
                maxQp, maxQpWr, maxSge, maxSgeRd, maxCq, maxCqe, maxMr, maxPd,
                maxQpRdAtom, maxQpInitRdAtom, maxResRdAtom, DeviceAttr.AtomicCapability.HCA,
                maxMw, maxMcastGrp, maxMcastQpAttach, maxTotalMcastQpAttach, maxAh, maxSrq, maxSrqWr, maxSrqSge, maxPkeys, localCaAckDelay, 1, maxInlineData, capFlags);
    }

    /** What {@code ibv_query_port} answers for the port whose active MTU is {@code activeMtu}. */
    public PortAttr portAttr(Mtu activeMtu) {
        return new PortAttr(PortAttr.PortState.ACTIVE, Mtu.MTU_4096, activeMtu, gidTableLength, portCapFlags,
                maxMsgSize, pkeyTableLength, 0, 0, activeWidth, activeSpeed, PHYS_STATE_LINK_UP,
                PortAttr.LinkLayer.ETHERNET);
    }

}
