package org.roce4j.emulator.verbs;

import org.roce4j.emulator.node.Rnic;
import java.lang.foreign.MemorySegment;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;

/** The API handle of a registered region; the RNIC's record is its {@link MemoryRegion}. */
final class EmulatedMr extends Resource implements Mr {
    private final EmulatedPd pd;
    final MemoryRegion region;

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

    /** {@code ibv_dereg_mr}: no memory windows exist here, so it never answers EBUSY. */
    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
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
