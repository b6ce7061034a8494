package org.roce4j.emulator.verbs;

import org.roce4j.emulator.node.Rnic;
import java.lang.foreign.MemorySegment;
import java.util.Set;

import java.util.Objects;

import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.ReregFlag;
import org.roce4j.verbs.ReregMrException;
import org.roce4j.verbs.ReregMrException.ErrorCode;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;

/** The API handle of a registered region; the RNIC's record is its {@link MemoryRegion}. */
final class EmulatedMr extends Resource implements Mr {
    private EmulatedPd pd;
    /** The RNIC's record; a reregistration replaces it (the old one is freed). */
    MemoryRegion region;

    EmulatedMr(Rnic rnic, EmulatedPd pd, MemoryRegion region) {
        super(rnic);
        this.pd = pd;
        this.region = region;
    }

    @Override
    String kind() {
        return "memory region";
    }

    @Override
    public Pd pd() {
        return pd;
    }

    @Override
    public int lkey() {
        return region.lkey;
    }

    @Override
    public int rkey() {
        return region.rkey;
    }

    @Override
    public long address() {
        return region.address;
    }

    @Override
    public long length() {
        return region.length;
    }

    @Override
    public MemorySegment segment() {
        return region.segment;
    }

    @Override
    public Set<AccessFlag> access() {
        return AccessFlag.of(region.access);
    }

    @Override
    public void rereg(Set<ReregFlag> flags, Pd newPd, MemorySegment memory, Set<AccessFlag> access) {
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(access, "access");
        rnic.run(() -> {
            checkOpen("ibv_rereg_mr");
            // libibverbs ibv_rereg_mr's own checks come first, on every device: IBV_REREG_MR_ERR_INPUT
            if (flags.contains(ReregFlag.CHANGE_TRANSLATION) && memory == null) {
                throw reregFailed(ErrorCode.INPUT, Errno.EINVAL, "CHANGE_TRANSLATION without memory");
            }
            if (!access.isEmpty() && !flags.contains(ReregFlag.CHANGE_ACCESS)) {
                throw reregFailed(ErrorCode.INPUT, Errno.EINVAL, "rights given without CHANGE_ACCESS");
            }
            if (rnic.model.has(Quirk.REREG_MR_NOT_SUPPORTED)) {
                throw reregFailed(ErrorCode.CMD, Errno.EOPNOTSUPP, "the device cannot reregister (rxe provider)");
            }
            MemoryRegion replacement = checkedReplacement(flags, newPd, memory, access);
            if (replacement.protectionDomain != pd) {
                pd.mrs--;
                pd = (EmulatedPd) replacement.protectionDomain;
                pd.mrs++;
            }
            if (replacement.segment != region.segment) {
                pd.context.registeredMemory.remove(region.segment);
                pd.context.registeredMemory.add(replacement.segment);
            }
            rnic.memoryRegions.reregister(region, replacement);
            region = replacement;
        });
    }

    /** The kernel's ib_uverbs_rereg_mr checks (IBV_REREG_MR_ERR_CMD, EINVAL), then the region it asks for. */
    private MemoryRegion checkedReplacement(Set<ReregFlag> flags, Pd newPd, MemorySegment memory,
                                            Set<AccessFlag> access) {
        if (flags.isEmpty()) {
            throw reregFailed(ErrorCode.CMD, Errno.EINVAL, "no flag: nothing to change");
        }
        EmulatedPd targetPd = pd;
        if (flags.contains(ReregFlag.CHANGE_PD)) {
            if (!(newPd instanceof EmulatedPd p) || p.context != pd.context || p.closed) {
                throw reregFailed(ErrorCode.CMD, Errno.EINVAL, "the new PD is not an open PD of this context");
            }
            targetPd = p;
        }
        MemorySegment targetMemory = flags.contains(ReregFlag.CHANGE_TRANSLATION) ? memory : region.segment;
        long targetAddress = flags.contains(ReregFlag.CHANGE_TRANSLATION) ? memory.address() : region.address;
        int targetAccess = flags.contains(ReregFlag.CHANGE_ACCESS) ? AccessFlag.bits(access) : region.access;
        String problem = pd.registrationProblem(targetMemory, targetAddress, AccessFlag.of(targetAccess));
        if (problem != null) {
            throw reregFailed(ErrorCode.CMD, Errno.EINVAL, problem);
        }
        return new MemoryRegion(targetMemory, targetAddress, targetAccess, targetPd);
    }

    private static ReregMrException reregFailed(ErrorCode code, Errno errno, String why) {
        return new ReregMrException(code, errno, why);
    }

    /** {@code ibv_dereg_mr}; EINVAL while windows are bound to the region (rxe_verbs.c rxe_dereg_mr, IBA 10.6.7.2.6). */
    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
            }
            if (region.boundWindows > 0) {
                throw invalid("ibv_dereg_mr", region.boundWindows + " memory windows are bound to the region");
            }
            closed = true;
            rnic.memoryRegions.deregister(region);
            pd.context.registeredMemory.remove(region.segment);
            pd.mrs--;
        });
    }

    @Override
    public String toString() {
        return "Mr[lkey=0x" + Integer.toHexString(region.lkey) + ", rkey=0x" + Integer.toHexString(region.rkey)
                + ", addr=0x" + Long.toHexString(region.address) + ", length=" + region.length + "]";
    }
}
