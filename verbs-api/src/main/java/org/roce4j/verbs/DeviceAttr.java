package org.roce4j.verbs;

/** Limits and identity of a device: the fields of {@code struct ibv_device_attr} a RoCE user reads. */
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
        int maxAh,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxPkeys,
        int localCaAckDelay,
        int physPortCnt,
        int maxInlineData) {

    /** {@code enum ibv_atomic_cap}. */
    public enum AtomicCapability {
        NONE,
        /** Atomic with respect to this device's own operations only. */
        HCA,
        /** Atomic with respect to the CPU and other devices too. */
        GLOB
    }
}
