package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.ReregFlag;
import org.roce4j.verbs.ReregMrException;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;

/** A registered memory region: {@code struct ibv_mr *}. */
final class IbvMr extends Resource implements Mr {
    final MemorySegment mr;
    // changed by rereg (under the lock), read without it
    private volatile IbvPd pd;
    private volatile MemorySegment memory;
    private volatile long address;
    private volatile Set<AccessFlag> access;
    private volatile int lkey;
    private volatile int rkey;

    IbvMr(IbvPd pd, MemorySegment mr, MemorySegment memory, long address, Set<AccessFlag> access) {
        this.pd = pd;
        this.mr = mr;
        this.memory = memory;
        this.address = address;
        this.access = access.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(access);
        this.lkey = mr.get(JAVA_INT, Layouts.offset(Layouts.IBV_MR, "lkey"));
        this.rkey = mr.get(JAVA_INT, Layouts.offset(Layouts.IBV_MR, "rkey"));
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
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return memory.byteSize();
    }

    @Override
    public MemorySegment segment() {
        return memory;
    }

    @Override
    public Set<AccessFlag> access() {
        return EnumSet.copyOf(access.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : access);
    }

    /**
     * {@code ibv_rereg_mr}, passed through: whatever libibverbs, the provider and the kernel answer reaches
     * the caller. The only check of ours keeps the JVM safe: new memory must be native and alive (an address
     * is all the device gets).
     */
    @Override
    public synchronized void rereg(Set<ReregFlag> flags, Pd newPd, MemorySegment newMemory, Set<AccessFlag> newAccess) {
        Objects.requireNonNull(flags, "flags");
        Objects.requireNonNull(newAccess, "access");
        checkOpen("ibv_rereg_mr");
        boolean translation = flags.contains(ReregFlag.CHANGE_TRANSLATION);
        if (translation && newMemory != null && (!newMemory.isNative() || !newMemory.scope().isAlive())) {
            throw new VerbsException(Errno.EINVAL, "ibv_rereg_mr: the new memory is not native memory that is alive");
        }
        IbvPd targetPd = flags.contains(ReregFlag.CHANGE_PD) && newPd instanceof IbvPd p ? p : null;
        MemorySegment addr = translation && newMemory != null ? newMemory : MemorySegment.NULL;
        long length = translation && newMemory != null ? newMemory.byteSize() : 0;
        int ret;
        int errno;
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment state = scratch.allocate(LibIbverbs.CALL_STATE);
            // a local, not a conditional in the call: invokeExact types a conditional argument as Object
            MemorySegment pdArg = targetPd == null ? MemorySegment.NULL : targetPd.pd;
            ret = (int) pd.context.lib.reregMr.invokeExact(state, mr, ReregFlag.bits(flags), pdArg, addr, length,
                    AccessFlag.bits(newAccess));
            errno = state.get(JAVA_INT, LibIbverbs.ERRNO);
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_rereg_mr: native call failed: " + t, t);
        }
        if (ret != 0) {
            throw new ReregMrException(ReregMrException.ErrorCode.of(ret), Errno.of(errno),
                    "returned " + ret + " (errno " + errno + ")");
        }
        if (targetPd != null && targetPd != pd) {
            pd.removeChild();
            targetPd.addChild();
            pd = targetPd;
        }
        if (translation) {
            pd.context.registeredMemory.remove(memory);
            pd.context.registeredMemory.add(newMemory);
            memory = newMemory;
            address = newMemory.address();
        }
        if (flags.contains(ReregFlag.CHANGE_ACCESS)) {
            access = newAccess.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(newAccess);
        }
        lkey = mr.get(JAVA_INT, Layouts.offset(Layouts.IBV_MR, "lkey"));   // the provider may have changed them
        rkey = mr.get(JAVA_INT, Layouts.offset(Layouts.IBV_MR, "rkey"));
    }

    @Override
    public void close() {
        closeOnce("ibv_dereg_mr", "memory windows", () -> {
            LibIbverbs.status("ibv_dereg_mr", pd.context.lib.deregMr, mr);
            pd.context.registeredMemory.remove(memory);
            pd.removeChild();
        });
    }
}
