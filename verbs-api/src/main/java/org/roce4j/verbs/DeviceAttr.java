package org.roce4j.verbs;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Limits and identity of a device: the fields of {@code struct ibv_device_attr} a RoCE user reads,
 * as {@link Context#queryDevice()} ({@code ibv_query_device}) returns them.
 *
 * @param fwVer           firmware version ({@code fw_ver})
 * @param nodeGuid        node GUID ({@code node_guid}), host byte order
 * @param sysImageGuid    system image GUID ({@code sys_image_guid})
 * @param maxMrSize       largest memory region, in bytes ({@code max_mr_size})
 * @param pageSizeCap     supported page sizes, as a bit mask ({@code page_size_cap})
 * @param vendorId        IEEE vendor ID ({@code vendor_id})
 * @param vendorPartId    vendor part ID ({@code vendor_part_id})
 * @param hwVer           hardware version ({@code hw_ver})
 * @param maxQp           most queue pairs ({@code max_qp})
 * @param maxQpWr         most outstanding work requests per queue ({@code max_qp_wr})
 * @param maxSge          most SGEs per send or receive work request ({@code max_sge})
 * @param maxSgeRd        most SGEs per RDMA READ ({@code max_sge_rd})
 * @param maxCq           most completion queues ({@code max_cq})
 * @param maxCqe          most entries per completion queue ({@code max_cqe})
 * @param maxMr           most memory regions ({@code max_mr})
 * @param maxPd           most protection domains ({@code max_pd})
 * @param maxQpRdAtom     most RDMA READs and atomics a QP accepts as responder ({@code max_qp_rd_atom})
 * @param maxQpInitRdAtom most RDMA READs and atomics a QP has outstanding as requester ({@code max_qp_init_rd_atom})
 * @param maxResRdAtom    responder resources for READs and atomics, device-wide ({@code max_res_rd_atom})
 * @param atomicCap       how atomic the atomic operations are ({@code atomic_cap})
 * @param maxMw           most memory windows ({@code max_mw})
 * @param maxMcastGrp     most multicast groups ({@code max_mcast_grp})
 * @param maxMcastQpAttach most QPs attached to one multicast group ({@code max_mcast_qp_attach})
 * @param maxTotalMcastQpAttach most attachments of QPs to multicast groups in all ({@code max_total_mcast_qp_attach})
 * @param maxAh           most address handles ({@code max_ah})
 * @param maxSrq          most shared receive queues ({@code max_srq})
 * @param maxSrqWr        most work requests per SRQ ({@code max_srq_wr})
 * @param maxSrqSge       most SGEs per SRQ work request ({@code max_srq_sge})
 * @param maxPkeys        P_Key table size ({@code max_pkeys})
 * @param localCaAckDelay local CA ACK delay ({@code local_ca_ack_delay})
 * @param physPortCnt     number of ports ({@code phys_port_cnt})
 * @param maxInlineData   most inline data per send work request (not in {@code ibv_device_attr}:
 *                        libibverbs reports it per QP, in the granted {@code cap})
 * @param deviceCapFlags  what the device says it can do ({@code device_cap_flags}; bits no
 *                        {@link DeviceCapFlag} names are left out)
 */
public record DeviceAttr(
        String fwVer,
        long nodeGuid,
        long sysImageGuid,
        long maxMrSize,
        long pageSizeCap,
        int vendorId,
        int vendorPartId,
        int hwVer,
        int maxQp,
        int maxQpWr,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        int maxResRdAtom,
        AtomicCapability atomicCap,
        int maxMw,
        int maxMcastGrp,
        int maxMcastQpAttach,
        int maxTotalMcastQpAttach,
        int maxAh,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxPkeys,
        int localCaAckDelay,
        int physPortCnt,
        int maxInlineData,
        Set<DeviceCapFlag> deviceCapFlags) {

    /** Keeps an unmodifiable copy of the flags. */
    public DeviceAttr {
        deviceCapFlags = Collections.unmodifiableSet(deviceCapFlags.isEmpty()
                ? EnumSet.noneOf(DeviceCapFlag.class) : EnumSet.copyOf(deviceCapFlags));
    }

    /** How atomic the device's atomic operations are: {@code enum ibv_atomic_cap}. */
    public enum AtomicCapability {
        /** No atomic operations ({@code IBV_ATOMIC_NONE}). */
        NONE,
        /** Atomic with respect to this device's own operations only. */
        HCA,
        /** Atomic with respect to the CPU and other devices too. */
        GLOB
    }
}
