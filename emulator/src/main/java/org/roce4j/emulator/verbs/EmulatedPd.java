package org.roce4j.emulator.verbs;

import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.emulator.Quirk;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AdviseMrAdvice;
import org.roce4j.verbs.AdviseMrFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqInitAttr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.spi.RegisteredMemory;

/** A protection domain: the identity that memory regions and QPs must share (IBTA 10.2.3). */
final class EmulatedPd extends Resource implements Pd {
    final EmulatedContext context;
    int mrs;
    int qps;
    int srqs;
    int ahs;
    int mws;

    EmulatedPd(Rnic rnic, EmulatedContext context) {
        super(rnic);
        this.context = context;
    }

    @Override
    String kind() {
        return "protection domain";
    }

    @Override
    public Context context() {
        return context;
    }

    /** The page size of the x86-64 and arm64 kernels Linux RDMA runs on (PAGE_SIZE). */
    private static final long KERNEL_PAGE_SIZE = 4096;

    @Override
    public Mr regMr(MemorySegment memory, long iova, Set<AccessFlag> access) {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(access, "access");
        return rnic.call(() -> {
            checkOpen("ibv_reg_mr");
            String problem = registrationProblem(memory, iova, access);
            if (problem != null) {
                throw invalid("ibv_reg_mr", problem);
            }
            OnDemandPaging.checkRegistration(rnic.model, access);
            if (access.contains(AccessFlag.ZERO_BASED) && !rnic.model.has(Quirk.ZERO_BASED_REGIONS_REGISTERED)) {
                // rxe_verbs.c rxe_reg_user_mr: ZERO_BASED is not in RXE_ACCESS_SUPPORTED_MR (a window's right only).
                throw new VerbsException(Errno.EOPNOTSUPP, "ibv_reg_mr: IBV_ACCESS_ZERO_BASED is for memory windows");
            }
            MemoryRegion region = new MemoryRegion(memory, iova, AccessFlag.bits(access), this);
            rnic.memoryRegions.register(region);
            context.registeredMemory.add(memory);
            mrs++;
            return new EmulatedMr(rnic, this, region);
        });
    }

    @Override
    public Mr regImplicitOdpMr(Set<AccessFlag> access) {
        Objects.requireNonNull(access, "access");
        return rnic.call(() -> {
            checkOpen("ibv_reg_mr");
            if ((access.contains(AccessFlag.REMOTE_WRITE) || access.contains(AccessFlag.REMOTE_ATOMIC))
                    && !access.contains(AccessFlag.LOCAL_WRITE)) {
                throw invalid("ibv_reg_mr", "REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE (IBTA o10-26)");
            }
            throw OnDemandPaging.implicitRefusal(rnic.model, access);
        });
    }

    @Override
    public void adviseMr(AdviseMrAdvice advice, Set<AdviseMrFlag> flags, ScatterGatherList sgl) {
        Objects.requireNonNull(advice, "advice");
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(sgl, "sgl");
        rnic.run(() -> {
            checkOpen("ibv_advise_mr");
            OnDemandPaging.advise(rnic.model, rnic.memoryRegions, this, advice, flags, sgl);
        });
    }

    @Override
    public Mw allocMw(MwType type) {
        Objects.requireNonNull(type, "type");
        return rnic.call(() -> {
            checkOpen("ibv_alloc_mw");
            MemoryWindow window = new MemoryWindow(type, this);
            rnic.memoryRegions.allocate(window);
            mws++;
            return new EmulatedMw(rnic, this, window);
        });
    }

    /** Why memory cannot be registered (ibv_reg_mr, or ibv_rereg_mr's new translation), or null. */
    String registrationProblem(MemorySegment memory, long iova, Set<AccessFlag> access) {
        String problem = RegisteredMemory.registrationProblem(memory, iova, access);
        if (problem == null) {
            problem = unreachableByRnic(memory);
        }
        if (problem == null && memory.isReadOnly()) {
            problem = "the segment is read-only";
        }
        if (problem == null) {
            problem = DeviceCapabilitiesEx.flushAccessProblem(rnic.model, access);
        }
        // uverbs_cmd.c ib_uverbs_reg_mr, for every device: (start & ~PAGE_MASK) != (hca_va & ~PAGE_MASK)
        // is EINVAL -- the IOVA keeps the address's offset within its page.
        if (problem == null && ((memory.address() ^ iova) & (KERNEL_PAGE_SIZE - 1)) != 0) {
            problem = "the IOVA's offset within a page differs from the address's (Linux ib_uverbs_reg_mr)";
        }
        return problem;
    }

    /** Never started, so it owns no confined arena: what any thread may access, it may. */
    private static final Thread ANY_OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    /**
     * Why the RNIC could not touch this memory later, or null. The RNIC runs on whichever thread
     * drives it: with a threaded fabric its event loop, a link's receive thread, or any thread that
     * posts; with a deterministic fabric the thread that calls it. So a threaded fabric needs memory
     * every thread may access (a shared, global or automatic arena); a deterministic one accepts
     * memory confined to the calling thread. Should another thread drive it after all, the access
     * fails inside the RNIC and becomes a completion error like any other memory failure.
     */
    private String unreachableByRnic(MemorySegment memory) {
        if (!memory.scope().isAlive()) {
            return "the segment's arena is already closed";
        }
        if (!memory.isAccessibleBy(Thread.currentThread())) {
            return "the segment is confined to another thread; the RNIC cannot access it";
        }
        if (!rnic.isDeterministic() && !memory.isAccessibleBy(ANY_OTHER_THREAD)) {
            return "the segment is confined to this thread (Arena.ofConfined); the RNIC's threads cannot "
                    + "access it: use Arena.ofShared, ofAuto or global";
        }
        return null;
    }

    @Override
    public Qp createQp(QpInitAttr initAttr) {
        Objects.requireNonNull(initAttr, "initAttr");
        return rnic.call(() -> {
            checkOpen("ibv_create_qp");
            return EmulatedQp.create(rnic, this, initAttr);
        });
    }

    @Override
    public QpEx createQpEx(QpInitAttrEx initAttr) {
        Objects.requireNonNull(initAttr, "initAttr");
        return rnic.call(() -> {
            checkOpen("ibv_create_qp_ex");
            SendOpsSupport.check(rnic.model, initAttr.base().type(), initAttr.sendOps());
            return new EmulatedQpEx(EmulatedQp.create(rnic, this, initAttr.base()), initAttr.sendOps());
        });
    }

    @Override
    public Srq createSrq(SrqInitAttr initAttr) {
        Objects.requireNonNull(initAttr, "initAttr");
        return rnic.call(() -> {
            checkOpen("ibv_create_srq");
            return EmulatedSrq.create(rnic, this, initAttr);
        });
    }

    @Override
    public Ah createAh(AhAttr attr) {
        Objects.requireNonNull(attr, "attr");
        return rnic.call(() -> {
            checkOpen("ibv_create_ah");
            NetworkPath path = resolvePath(rnic, "ibv_create_ah", attr);
            if (ahs >= rnic.model.limits().maxAh()) {
                throw new org.roce4j.verbs.VerbsException(org.roce4j.verbs.Errno.ENOMEM, "ibv_create_ah: too many AHs");
            }
            ahs++;
            return new EmulatedAh(rnic, this, attr, path);
        });
    }

    /**
     * Checks an address vector and turns it into a wire path: port 1 (0 taken as "the QP's port"),
     * a populated source GID, and source and destination of the same IP version.
     */
    static NetworkPath resolvePath(Rnic rnic, String verb, AhAttr av) {
        if (av == null) {
            throw invalid(verb, "no address vector");
        }
        if (av.portNum() != 0 && av.portNum() != DeviceLimits.PORT) {
            throw invalid(verb, "port " + av.portNum() + " does not exist");
        }
        if (!rnic.gids.isValidIndex(av.sgidIndex())) {
            throw invalid(verb, "source GID index " + av.sgidIndex() + " is not populated");
        }
        if (av.hopLimit() < 0 || av.hopLimit() > 255 || av.trafficClass() < 0 || av.trafficClass() > 255
                || av.flowLabel() < 0 || av.flowLabel() > 0xFFFFF) {
            throw invalid(verb, "hop limit, traffic class or flow label out of range");
        }
        var source = rnic.gids.get(av.sgidIndex());
        if (source.isIpv4Mapped() != av.dgid().isIpv4Mapped()) {
            throw invalid(verb, "source GID " + source + " and destination GID " + av.dgid()
                    + " are not of the same IP version");
        }
        return rnic.path(source, av);
    }

    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
            }
            checkNoChildren("ibv_dealloc_pd", mrs, "memory regions");
            checkNoChildren("ibv_dealloc_pd", qps, "queue pairs");
            checkNoChildren("ibv_dealloc_pd", srqs, "shared receive queues");
            checkNoChildren("ibv_dealloc_pd", ahs, "address handles");
            checkNoChildren("ibv_dealloc_pd", mws, "memory windows");
            closed = true;
            context.pds--;
        });
    }
}
