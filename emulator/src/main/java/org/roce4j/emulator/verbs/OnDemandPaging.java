package org.roce4j.emulator.verbs;

import java.util.EnumSet;
import java.util.Set;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AdviseMrAdvice;
import org.roce4j.verbs.AdviseMrFlag;
import org.roce4j.verbs.DeviceCapFlagEx;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.OdpCaps;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.VerbsException;

/**
 * On-demand paging as rxe (kernel 6.14 on, {@code rxe_odp.c}) offers it, on memory that is already the JVM's:
 * an ODP region is registered like any other and then works like any other for every operation (rxe's ODP
 * paths differ from its pinned ones only in how they reach the pages); prefetch advice checks what rxe
 * checks and then has nothing to do. No page is ever absent, so nothing faults and nothing is delayed.
 */
final class OnDemandPaging {
    /** rxe.c rxe_init_device_param: ODP on UD carries sends and receives (no RDMA on UD). */
    private static final Set<OdpCaps.Transport> UD = EnumSet.of(OdpCaps.Transport.SEND, OdpCaps.Transport.RECV,
            OdpCaps.Transport.SRQ_RECV);
    /** The page size of the kernels Linux RDMA runs on: ib_umem_odp's bounds are page-aligned. */
    private static final long PAGE = 4096;

    private OnDemandPaging() {
    }

    /**
     * {@return what {@code ibv_query_device_ex} reports in odp_caps} rxe.c rxe_init_device_param: IB_ODP_SUPPORT
     * (not IMPLICIT: "not supported right now"); RC: SEND, RECV, WRITE, READ, ATOMIC, SRQ_RECV, and FLUSH and
     * ATOMIC_WRITE (6.16) where the device does those at all; UC none; UD: SEND, RECV, SRQ_RECV.
     */
    static OdpCaps caps(DeviceModel model) {
        if (model.has(Quirk.NO_ON_DEMAND_PAGING)) {
            return OdpCaps.NONE;
        }
        EnumSet<OdpCaps.Transport> rc = EnumSet.of(OdpCaps.Transport.SEND, OdpCaps.Transport.RECV,
                OdpCaps.Transport.WRITE, OdpCaps.Transport.READ, OdpCaps.Transport.ATOMIC, OdpCaps.Transport.SRQ_RECV);
        Set<DeviceCapFlagEx> ex = DeviceCapabilitiesEx.of(model);
        if (ex.contains(DeviceCapFlagEx.ATOMIC_WRITE)) {
            rc.add(OdpCaps.Transport.ATOMIC_WRITE);
        }
        if (ex.contains(DeviceCapFlagEx.FLUSH_GLOBAL) || ex.contains(DeviceCapFlagEx.FLUSH_PERSISTENT)) {
            rc.add(OdpCaps.Transport.FLUSH);
        }
        return new OdpCaps(EnumSet.of(OdpCaps.General.SUPPORT), rc, Set.of(), UD);
    }

    /**
     * Refuses an ON_DEMAND registration on a device without ODP: {@code ib_check_mr_access} (uverbs), after its
     * LOCAL_WRITE rule, answers a device without IBK_ON_DEMAND_PAGING EOPNOTSUPP (kernel 6.1: EINVAL).
     */
    static void checkRegistration(DeviceModel model, Set<AccessFlag> access) {
        if (access.contains(AccessFlag.ON_DEMAND) && !caps(model).supported()) {
            throw new VerbsException(model.has(Quirk.ON_DEMAND_REFUSED_WITH_EINVAL) ? Errno.EINVAL : Errno.EOPNOTSUPP,
                    "ibv_reg_mr: IBV_ACCESS_ON_DEMAND on a device without on-demand paging");
        }
    }

    /**
     * {@code ibv_reg_mr(pd, NULL, SIZE_MAX, ... ON_DEMAND)}: refused as any ON_DEMAND registration without ODP,
     * else EINVAL without IBV_ODP_SUPPORT_IMPLICIT (rxe_odp.c rxe_odp_mr_init_user), which no modelled device has.
     */
    static VerbsException implicitRefusal(DeviceModel model, Set<AccessFlag> access) {
        EnumSet<AccessFlag> odp = access.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(access);
        odp.add(AccessFlag.ON_DEMAND);
        checkRegistration(model, odp);
        return new VerbsException(Errno.EINVAL, "ibv_reg_mr: implicit ODP (address 0, length SIZE_MAX) needs "
                + "IBV_ODP_SUPPORT_IMPLICIT, which the device does not report");
    }

    /**
     * {@code ibv_advise_mr}, checked in the order and with the errnos of the kernel's ADVISE_MR method and rxe_odp.c
     * {@code rxe_ib_advise_mr}: EOPNOTSUPP without ODP; EINVAL for no SGE (the SGE list attribute's minimum size);
     * per SGE {@code lookup_mr(pd, IB_ACCESS_LOCAL_WRITE, lkey, RXE_LOOKUP_LOCAL)}: an lkey that names no valid
     * region of this PD with LOCAL_WRITE is EINVAL; a region that is not ODP is EINVAL too (our choice: rxe does
     * not check, mlx5 says ENOENT); with FLUSH the prefetch is synchronous and {@code ib_umem_odp_map_dma_and_lock}
     * answers a range outside the region's pages EFAULT; without FLUSH it is queued, best effort, and a bad range
     * is not reported. Then there is nothing to fetch: every page is present.
     */
    static void advise(DeviceModel model, MemoryRegionTable regions, Object pd, AdviseMrAdvice advice,
                       Set<AdviseMrFlag> flags, ScatterGatherList sgl) {
        if (!caps(model).supported()) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_advise_mr: the device has no on-demand paging");
        }
        if (sgl.count() == 0) {
            throw new VerbsException(Errno.EINVAL, "ibv_advise_mr: no SGE");
        }
        for (int i = 0; i < sgl.count(); i++) {
            MemoryRegion region = regions.find(sgl.lkey(i));
            if (region == null || region.state != MemoryRegion.State.VALID || region.protectionDomain != pd
                    || !region.allows(AccessFlag.LOCAL_WRITE.bit())) {
                throw new VerbsException(Errno.EINVAL, "ibv_advise_mr: SGE " + i + "'s lkey 0x"
                        + Integer.toHexString(sgl.lkey(i)) + " names no valid region of this PD with LOCAL_WRITE");
            }
            if (!region.allows(AccessFlag.ON_DEMAND.bit())) {
                throw new VerbsException(Errno.EINVAL, "ibv_advise_mr: SGE " + i + "'s region is not on-demand paging");
            }
            if (flags.contains(AdviseMrFlag.FLUSH) && !withinPages(region, sgl.address(i), sgl.length(i))) {
                throw new VerbsException(Errno.EFAULT, "ibv_advise_mr: SGE " + i + " lies outside its region");
            }
        }
    }

    /** ib_umem_odp_map_dma_and_lock: the range within the region's first and last page. */
    private static boolean withinPages(MemoryRegion region, long va, int length) {
        long start = region.address & -PAGE;
        long end = (region.address + region.length + PAGE - 1) & -PAGE;
        long last = va + Integer.toUnsignedLong(length);
        return Long.compareUnsigned(va, start) >= 0 && Long.compareUnsigned(last, va) >= 0
                && Long.compareUnsigned(last, end) <= 0;
    }
}
