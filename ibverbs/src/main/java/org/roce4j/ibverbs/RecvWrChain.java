package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.ScatterGatherList;

/**
 * Native {@code struct ibv_recv_wr} and {@code struct ibv_sge} arrays owned by one receive queue (of
 * a QP or an SRQ), filled from {@link RecvWr}s and handed to {@code post_recv} / {@code post_srq_recv}.
 * The arrays grow (doubling) and are then reused: a warm post allocates nothing. Not thread-safe;
 * the owner synchronizes.
 */
final class RecvWrChain {
    private static final long WR_SIZE = Layouts.IBV_RECV_WR.byteSize();
    private static final long SGE_SIZE = Layouts.IBV_SGE.byteSize();
    private static final long WR_ID = Layouts.offset(Layouts.IBV_RECV_WR, "wr_id");
    private static final long NEXT = Layouts.offset(Layouts.IBV_RECV_WR, "next");
    private static final long SG_LIST = Layouts.offset(Layouts.IBV_RECV_WR, "sg_list");
    private static final long NUM_SGE = Layouts.offset(Layouts.IBV_RECV_WR, "num_sge");

    private final Arena arena;
    private final MemorySegment badWr;
    private MemorySegment wrs;
    private MemorySegment sges;
    private final RecvWr[] single = new RecvWr[1];
    private RecvWr[] scratch = new RecvWr[4];

    RecvWrChain(Arena arena) {
        this.arena = arena;
        this.badWr = arena.allocate(ADDRESS);
        this.wrs = arena.allocate(WR_SIZE * 4, 8);
        this.sges = arena.allocate(SGE_SIZE * 8, 8);
    }

    /** Posts one WR through {@code fn} ({@code post_recv} of {@code queue}). */
    void post(String verb, MemorySegment fn, MemorySegment queue, RecvWr wr) {
        single[0] = wr;
        try {
            post(verb, fn, queue, single, 1);
        } finally {
            single[0] = null;
        }
    }

    void post(String verb, MemorySegment fn, MemorySegment queue, List<RecvWr> list) {
        int count = list.size();
        if (scratch.length < count) {
            scratch = new RecvWr[Integer.highestOneBit(count) * 2];
        }
        for (int i = 0; i < count; i++) {
            scratch[i] = list.get(i);
        }
        try {
            post(verb, fn, queue, scratch, count);
        } finally {
            java.util.Arrays.fill(scratch, 0, count, null);
        }
    }

    private void post(String verb, MemorySegment fn, MemorySegment queue, RecvWr[] list, int count) {
        if (count == 0) {
            return;
        }
        int totalSges = 0;
        for (int i = 0; i < count; i++) {
            totalSges += list[i].sgList().count();
        }
        ensureCapacity(count, totalSges);
        long sgeAt = 0;
        for (int i = 0; i < count; i++) {
            RecvWr wr = list[i];
            long at = i * WR_SIZE;
            ScatterGatherList sgl = wr.sgList();
            wrs.set(JAVA_LONG, at + WR_ID, wr.wrId());
            // Pointers written as 64-bit numbers: no MemorySegment object per field.
            wrs.set(JAVA_LONG, at + NEXT, i + 1 < count ? wrs.address() + (i + 1) * WR_SIZE : 0L);
            wrs.set(JAVA_LONG, at + SG_LIST, sgl.count() == 0 ? 0L : sges.address() + sgeAt);
            wrs.set(JAVA_INT, at + NUM_SGE, sgl.count());
            sgeAt = writeSges(sges, sgeAt, sgl);
        }
        badWr.set(JAVA_LONG, 0, 0L);
        int errno;
        try {
            errno = (int) Ops.POST.invokeExact(fn, queue, wrs, badWr);
        } catch (Throwable t) {
            throw new IllegalStateException(verb + " failed", t);
        }
        if (errno != 0) {
            int index = badIndex(badWr, wrs, WR_SIZE, count);
            throw new BadWorkRequestException(Errno.of(Math.abs(errno)), index, list[index].wrId(), verb + " failed");
        }
    }

    /** Writes the SGEs at {@code at}; returns the offset after them. */
    static long writeSges(MemorySegment sges, long at, ScatterGatherList sgl) {
        for (int s = 0; s < sgl.count(); s++) {
            sges.set(JAVA_LONG, at, sgl.address(s));
            sges.set(JAVA_INT, at + 8, sgl.length(s));
            sges.set(JAVA_INT, at + 12, sgl.lkey(s));
            at += SGE_SIZE;
        }
        return at;
    }

    /** Which WR {@code bad_wr} points at; the first when the provider left it unset. */
    static int badIndex(MemorySegment badWr, MemorySegment wrs, long wrSize, int count) {
        long bad = badWr.get(JAVA_LONG, 0);
        long index = (bad - wrs.address()) / wrSize;
        return bad == 0 || index < 0 || index >= count ? 0 : (int) index;
    }

    private void ensureCapacity(int count, int totalSges) {
        if (wrs.byteSize() < count * WR_SIZE) {
            wrs = arena.allocate(WR_SIZE * Integer.highestOneBit(count) * 2, 8);
        }
        if (sges.byteSize() < totalSges * SGE_SIZE) {
            sges = arena.allocate(SGE_SIZE * Integer.highestOneBit(totalSges) * 2, 8);
        }
    }
}
