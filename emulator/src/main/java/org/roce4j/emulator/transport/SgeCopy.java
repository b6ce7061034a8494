package org.roce4j.emulator.transport;

import org.roce4j.emulator.verbs.MemoryRegion;
import org.roce4j.emulator.verbs.MemoryRegionTable;
import java.lang.foreign.MemorySegment;

import org.roce4j.emulator.fabric.PayloadReference;

import org.roce4j.verbs.AccessFlag;

/**
 * Moves message bytes between frame bytes and the memory an SGE list names, checking each piece
 * with the {@link MemoryRegionTable} as rxe's {@code copy_data} does: straight between the frame
 * array and the registered {@link MemorySegment}, nothing allocated.
 *
 * <p>A send WQE and a receive queue keep their SGEs as rxe's WQEs do ({@code struct rxe_dma_info}: the SGEs
 * follow one another): in a {@code long[]}, two longs per SGE — the address, then the length in the high 32 bits
 * and the lkey in the low 32 ({@link #put}). One SGE is one 16-byte piece of one array, so posting and
 * sending a WQE touch one cache line for it, not one per field (bench/RESULTS.md, scale).
 */
final class SgeCopy {
    static final int OK = 0;
    /** The SGEs hold fewer bytes than the message needs (IBTA: local length error). */
    static final int TOO_LONG = 1;
    /** An lkey is invalid, of another PD, lacks LOCAL_WRITE, or the range is outside its region. */
    static final int PROTECTION = 2;
    /** The keys were right but the memory could not be touched ({@link MemoryRegion#store}, {@link MemoryRegion#load}). */
    static final int FAULT = 3;
    /** {@link #reference}: the bytes span more than one SGE; {@link #gather} them instead. */
    static final int SPLIT = 4;

    private static final int LOCAL_WRITE = AccessFlag.LOCAL_WRITE.bit();

    /** Longs per SGE in a queue's array. */
    static final int LONGS_PER_SGE = 2;

    private SgeCopy() {
    }

    /** Writes SGE {@code index} (counted in SGEs) of {@code sges}. */
    static void put(long[] sges, int index, long address, int length, int lkey) {
        sges[LONGS_PER_SGE * index] = address;
        sges[LONGS_PER_SGE * index + 1] = (long) length << 32 | Integer.toUnsignedLong(lkey);
    }

    static long address(long[] sges, int index) {
        return sges[LONGS_PER_SGE * index];
    }

    /** {@return the SGE's length, unsigned (ibv_sge's uint32_t)} */
    static long length(long[] sges, int index) {
        return sges[LONGS_PER_SGE * index + 1] >>> 32;
    }

    static int lkey(long[] sges, int index) {
        return (int) sges[LONGS_PER_SGE * index + 1];
    }

    /**
     * Copies {@code length} bytes of {@code src} into the SGEs, starting {@code offset} bytes into the
     * message they describe. The regions must allow LOCAL_WRITE.
     */
    static int scatter(MemoryRegionTable regions, Object pd, long[] sges, int count, long offset, byte[] src, int srcOffset, int length) {
        return scatter(regions, pd, sges, count, offset, src, srcOffset, null, 0, length);
    }

    /** {@link #scatter} of a payload that came by reference: from the sender's memory straight into the SGEs. */
    static int scatter(MemoryRegionTable regions, Object pd, long[] sges, int count, long offset,
                       PayloadReference src) {
        return scatter(regions, pd, sges, count, offset, null, 0, src.source().segment(), src.sourceOffset(),
                src.length());
    }

    /** From {@code src} at {@code srcOffset} when {@code source} is null, else from {@code source} at {@code sourceOffset}. */
    private static int scatter(MemoryRegionTable regions, Object pd, long[] sges, int count, long offset,
                               byte[] src, int srcOffset, MemorySegment source, long sourceOffset, int length) {
        int remaining = length;
        long skip = offset;
        for (int i = 0; i < count && remaining > 0; i++) {
            long sgeLength = length(sges, i);
            if (skip >= sgeLength) {
                skip -= sgeLength;
                continue;
            }
            int chunk = (int) Math.min(remaining, sgeLength - skip);
            long va = address(sges, i) + skip;
            if (regions.checkLocal(lkey(sges, i), pd, LOCAL_WRITE, va, chunk) != MemoryRegionTable.Check.OK) {
                return PROTECTION;
            }
            MemoryRegion region = regions.find(lkey(sges, i));
            boolean stored = source == null
                    ? region.store(va, src, srcOffset, chunk) : region.store(va, source, sourceOffset, chunk);
            if (!stored) {
                return FAULT;
            }
            srcOffset += chunk;
            sourceOffset += chunk;
            remaining -= chunk;
            skip = 0;
        }
        return remaining == 0 ? OK : TOO_LONG;
    }

    /** Copies {@code length} message bytes, from {@code offset} on, out of the SGEs into {@code dst}. */
    static int gather(MemoryRegionTable regions, Object pd, long[] sges, int count, long offset, byte[] dst, int dstOffset, int length) {
        int remaining = length;
        long skip = offset;
        for (int i = 0; i < count && remaining > 0; i++) {
            long sgeLength = length(sges, i);
            if (skip >= sgeLength) {
                skip -= sgeLength;
                continue;
            }
            int chunk = (int) Math.min(remaining, sgeLength - skip);
            long va = address(sges, i) + skip;
            if (regions.checkLocal(lkey(sges, i), pd, 0, va, chunk) != MemoryRegionTable.Check.OK) {
                return PROTECTION;
            }
            MemoryRegion region = regions.find(lkey(sges, i));
            if (!region.load(va, dst, dstOffset, chunk)) {
                return FAULT;
            }
            dstOffset += chunk;
            remaining -= chunk;
            skip = 0;
        }
        return remaining == 0 ? OK : TOO_LONG;
    }

    /**
     * Points {@code into} at the {@code length} message bytes from {@code offset} on, with the checks of
     * {@link #gather}, instead of copying them: for a frame that carries its payload by reference
     * ({@link PayloadReference}, at {@code frameOffset} of the frame). {@return {@link #OK}, an error as
     * {@code gather} gives it, or {@link #SPLIT} when the bytes lie in more than one SGE}
     */
    static int reference(MemoryRegionTable regions, Object pd, long[] sges, int count, long offset,
                         int length, PayloadReference into, int frameOffset) {
        long skip = offset;
        for (int i = 0; i < count; i++) {
            long sgeLength = length(sges, i);
            if (skip >= sgeLength) {
                skip -= sgeLength;
                continue;
            }
            if (sgeLength - skip < length) {
                return SPLIT;
            }
            long va = address(sges, i) + skip;
            if (regions.checkLocal(lkey(sges, i), pd, 0, va, length) != MemoryRegionTable.Check.OK) {
                return PROTECTION;
            }
            return regions.find(lkey(sges, i)).reference(va, length, into, frameOffset) ? OK : FAULT;
        }
        return SPLIT;
    }

    /** Checks every non-empty SGE up front (IBTA 10.6.3.2), so a bad lkey fails before a packet leaves. */
    static MemoryRegionTable.Check checkAll(MemoryRegionTable regions, Object pd, long[] sges, int count, int accessBit) {
        for (int i = 0; i < count; i++) {
            long length = length(sges, i);
            if (length > 0) {
                MemoryRegionTable.Check check = regions.checkLocal(lkey(sges, i), pd, accessBit,
                        address(sges, i), length);
                if (check != MemoryRegionTable.Check.OK) {
                    return check;
                }
            }
        }
        return MemoryRegionTable.Check.OK;
    }
}
