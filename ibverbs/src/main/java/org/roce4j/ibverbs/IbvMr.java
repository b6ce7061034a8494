package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;

/** A registered memory region: {@code struct ibv_mr *}. */
final class IbvMr extends Resource implements Mr {
    private final IbvPd pd;
    private final MemorySegment mr;
    private final MemorySegment memory;
    private final long address;
    private final Set<AccessFlag> access;
    private final int lkey;
    private final int rkey;

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

    @Override
    public void close() {
        closeOnce("ibv_dereg_mr", "memory windows", () -> {
            LibIbverbs.status("ibv_dereg_mr", pd.context.lib.deregMr, mr);
            pd.context.registeredMemory.remove(memory);
            pd.removeChild();
        });
    }
}
