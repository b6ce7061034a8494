package org.roce4j.emulator.transport;

import org.roce4j.emulator.node.NetworkPath;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.roce4j.emulator.verbs.MemoryWindow;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WrOpcode;
import org.roce4j.verbs.spi.RegisteredMemory;

/**
 * A QP's send queue: a ring of {@link SendWqe} slots reused forever, each WQE with its SGEs ({@link SgeCopy#put})
 * and, once it carried any, its inline data, so a warm post copies fields and allocates nothing. Three counters run
 * through it: {@link #posted} (producer), the requester's position, and {@link #retired} (what the
 * completer has completed, the consumer).
 *
 * <p>Posters and the RNIC share it as rdma-core's rxe provider shares its mmapped send queue with the kernel
 * ({@code rxe_post_send} writes the WQE under {@code sq.lock} and advances the producer index): a post takes this
 * queue's monitor, never the fabric lock; it writes the slot at {@link #posted} and then publishes it by the
 * volatile write of {@code posted}. The RNIC (under the fabric lock) owns every slot in
 * {@code [retired, posted)} and hands slots back by {@link #release}, after it has read the WQEs it retired and
 * before their completions can be polled: a poster reuses only a released slot. Whatever empties the queue
 * behind a poster's back — RESET ({@link #clear}), a QP's destruction — holds the monitor as well (the fabric
 * lock first, then this).
 */
public final class SendQueue {
    /**
     * {@code slots[0]}, read without the array: the slot of every WR posted to an empty queue. The first reference
     * field, so that a collection lays it out next to the queue ({@link org.roce4j.emulator.verbs.EmulatedQp}'s
     * field order).
     */
    private final SendWqe slotZeroWqe;
    public final int capacity;
    /** The granted max_send_sge (0 allowed: then only INLINE sends and SGE-less WRs can be posted). */
    public final int maxSge;
    /** SGEs each slot holds in {@link #sges}: max_send_sge, at least one. */
    private final int sgeStride;
    public final int maxInline;
    /**
     * Each slot's WQE, made the first time a WR is posted to the slot ({@link #slotTaking}): a QP that never has more
     * than one WR outstanding — most of a server's thousands — keeps one WQE rather than its whole ring, which
     * halves an idle QP's heap and keeps a busy QP's hot objects closer together (bench/RESULTS.md, issue 17,
     * twelfth session). Only slots a WR was posted to are read ({@code [retired, posted)}).
     */
    private final SendWqe[] slots;
    /**
     * Bytes of inline data each slot holds: the granted max_inline_data, and at least the 8 bytes of an ATOMIC
     * WRITE, which the extended QP's builder hands over as the WQE's own data (rxe: {@code dma.atomic_wr}).
     */
    private final int inlineSlot;
    /** The producer index: written by posters under this queue's monitor, read by the RNIC without it. */
    public volatile long posted;
    /** The consumer index: the RNIC's alone (under the fabric lock); posters read {@link #released}. */
    public long retired;
    /** {@link #retired} as the RNIC last published it ({@link #release}): the slots posters may fill again. */
    private volatile long released;
    /**
     * The sequence number that takes slot 0: moved to {@link #posted} whenever a WQE is posted to an empty queue
     * (see {@link #fill}).
     */
    private long slotZero;

    public SendQueue(int capacity, int maxSge, int maxInline) {
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.sgeStride = Math.max(maxSge, 1);
        this.maxInline = maxInline;
        this.slots = new SendWqe[capacity];
        this.slotZeroWqe = slots[0] = new SendWqe(sgeStride);
        this.inlineSlot = Math.max(maxInline, 8);
    }

    int slotOf(long sequence) {
        return (int) Long.remainderUnsigned(sequence - slotZero, capacity);
    }

    /** {@return the WQE in the slot of the WR numbered {@code sequence}}, or null when no WR was ever posted to it. */
    public SendWqe at(long sequence) {
        int slot = slotOf(sequence);
        return slot == 0 ? slotZeroWqe : slots[slot];
    }

    /** {@return the WQE of the slot the WR numbered {@code sequence} is posted to}, made if the slot has none yet. */
    private SendWqe slotTaking(long sequence) {
        SendWqe wqe = at(sequence);
        if (wqe == null) {
            wqe = new SendWqe(sgeStride);
            slots[slotOf(sequence)] = wqe; // published with the WR, by the volatile write of posted
        }
        return wqe;
    }

    /** {@return the bytes {@code wqe}'s INLINE data is copied into}, made the first time its slot carries any */
    private byte[] inlineDataOf(SendWqe wqe) {
        if (wqe.inlineData == null) {
            wqe.inlineData = new byte[inlineSlot]; // published with the WR, by the volatile write of posted
        }
        return wqe.inlineData;
    }

    /** {@return how many WQEs a poster can still post} */
    public int room() {
        return capacity - (int) (posted - released);
    }

    public boolean isFull() {
        return room() <= 0;
    }

    /**
     * The RNIC is done reading every WQE below {@link #retired}: their slots go back to the posters. Called after
     * a retired WQE's completion is made and before the CQ shows it (a polled completion promises its room), and
     * at the end of a retirement or a flush; never between {@code retired++} and the read of that WQE.
     */
    public void release() {
        released = retired;
    }

    /**
     * Copies a checked work request into the next slot; returns its sequence number, or -1 when its
     * INLINE data could not be read (see {@link #copyInline}); then nothing was posted.
     */
    public long post(SendWr wr, NetworkPath udPath, RegisteredMemory inlineSources) {
        long sequence = posted;
        SendWqe wqe = fill(wr, udPath);
        if (wqe.opcode == WrOpcode.FLUSH) {
            // providers/rxe/rxe.c convert_send_wr copies no remote fields for IBV_WR_FLUSH (ibv_send_wr has none
            // for it): the kernel gets rkey 0, address 0, placement type 0 and level 0. ibv_wr_flush fills them.
            wqe.remoteAddr = 0;
            wqe.rkey = 0;
        }
        if (wqe.inline && !copyInline(wr.sgList(), inlineDataOf(wqe), inlineSources)) {
            return -1;
        }
        posted = sequence + 1; // publishes the slot
        return sequence;
    }

    /**
     * Copies a work request built by an extended QP's builder into the next slot: its fields from {@code wr},
     * and when {@code inlineLength >= 0} its data from {@code inline} at {@code inlineAt}, which the builder
     * copied when it was set (wr_set_inline_data, wr_atomic_write), instead of from {@code wr}'s SGEs; and when
     * {@code lengthAsSet >= 0}, the length the provider set ({@link org.roce4j.emulator.Quirk#WR_SET_SGE_LIST_LENGTH_IS_COUNT_TIMES_FIRST}, and a FLUSH's length); {@code feth}
     * the FETH word of a FLUSH (0 for anything else).
     */
    public void postBuilt(SendWr wr, NetworkPath udPath, byte[] inline, int inlineAt, int inlineLength,
                          long lengthAsSet, int feth) {
        SendWqe wqe = fill(wr, udPath);
        wqe.feth = feth;
        if (lengthAsSet >= 0) {
            wqe.length = lengthAsSet; // what the provider wrote into the WQE, whatever the SGEs add up to
        }
        if (inlineLength >= 0) {
            wqe.inline = true;
            wqe.numSge = 0;
            wqe.length = inlineLength;
            System.arraycopy(inline, inlineAt, inlineDataOf(wqe), 0, inlineLength);
        } else if (wqe.inline) {
            // IBV_SEND_INLINE in wr_flags, the data set by ibv_wr_set_sge(_list): it is sent from where the SGEs
            // say. Here rxe differs: its kernel copies the WQE's inline union, which then holds the SGE descriptors
            // (rxe_req.c finish_packet) — bytes no application means to send, and past them whatever the ring held.
            wqe.inline = false;
        }
        posted++; // publishes the slot (a volatile write)
    }

    private SendWqe fill(SendWr wr, NetworkPath udPath) {
        long sequence = posted;
        if (posted == released) {
            // Nothing outstanding holds a slot: the WQE takes slot 0 again. A QP with one WR at a time then
            // reuses one WQE's cache lines instead of walking the ring, which at thousands of QPs makes every
            // post miss the cache (issue 17's scale benchmark). Nothing outside the queue sees a slot.
            slotZero = sequence;
        }
        SendWqe wqe = slotTaking(sequence);
        ScatterGatherList sgl = wr.sgList();
        wqe.wrId = wr.wrId();
        wqe.opcode = wr.opcode();
        wqe.flags = wr.sendFlags();
        wqe.numSge = sgl.count();
        wqe.length = sgl.totalLength();
        wqe.inline = wr.has(SendFlag.INLINE);
        wqe.immData = wr.immData();
        wqe.invalidateRkey = wr.invalidateRkey();
        wqe.remoteAddr = wr.remoteAddr();
        wqe.rkey = wr.rkey();
        wqe.compareAdd = wr.compareAdd();
        wqe.swap = wr.swap();
        wqe.udPath = udPath;
        wqe.remoteQpn = wr.remoteQpn();
        wqe.remoteQkey = wr.remoteQkey();
        wqe.feth = 0;
        if (wr.opcode() == WrOpcode.BIND_MW) {
            copyBind(wqe, wr);
        }
        wqe.state = WqeState.POSTED;
        wqe.started = false;
        wqe.status = null;
        for (int i = 0; i < wqe.numSge; i++) {
            SgeCopy.put(wqe.sges, i, sgl.address(i), sgl.length(i), sgl.lkey(i));
        }
        return wqe;
    }

    /**
     * IBV_SEND_INLINE: the data is copied now and the lkeys are not checked (libibverbs), but only
     * from memory registered on the QP's context, read through that registration's own segment —
     * never through a raw address, which would crash the JVM for a bad one
     * ({@link WorkRequestChecks#sendProblem} refused the WR if the memory is not registered). False
     * when the memory went away after that check (an arena closed by another thread) or is confined
     * to another thread: the access fails safely and the post is refused.
     */
    private boolean copyInline(ScatterGatherList sgl, byte[] inlineData, RegisteredMemory inlineSources) {
        int at = 0;
        for (int i = 0; i < sgl.count(); i++) {
            int len = sgl.length(i);
            if (len == 0) {
                continue;
            }
            long address = sgl.address(i);
            MemorySegment source = inlineSources.holding(address, len);
            if (source == null) {
                return false;
            }
            try {
                MemorySegment.copy(source, ValueLayout.JAVA_BYTE, address - source.address(), inlineData, at, len);
            } catch (IllegalStateException | WrongThreadException gone) {
                return false;
            }
            at += len;
        }
        return true;
    }

    /** BIND_MW (rxe provider convert_send_wr): mw_rkey is the handle's rkey now, the rest from bind_info. */
    private static void copyBind(SendWqe wqe, SendWr wr) {
        MwBindInfo info = wr.bindInfo();
        if (wqe.bind == null) {
            wqe.bind = new WindowBind();
        }
        WindowBind bind = wqe.bind;
        bind.window = MemoryWindow.of(wr.mw());
        bind.windowRkey = wr.mw().rkey();
        bind.newRkey = wr.bindRkey();
        bind.regionLkey = info.mr() != null ? info.mr().lkey() : 0;
        bind.address = info.addr();
        bind.length = info.length();
        bind.access = AccessFlag.bits(info.mwAccessFlags());
    }

    /** Drops every WQE (RESET, or a QP being destroyed); the caller holds this queue's monitor. */
    public void clear() {
        retired = posted;
        release();
    }
}
