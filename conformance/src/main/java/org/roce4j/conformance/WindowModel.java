package org.roce4j.conformance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.MwType;

/**
 * What {@link MemoryWindowProperties} predicts: the memory windows of one responder region as IBTA 10.6.7 and
 * Linux rxe_mw.c say they behave, and the bytes of the region's allocation (guards included) and of the
 * requester's buffer after each operation. It is fed the keys the device handed out at {@code ibv_alloc_mw}
 * (they are the device's to choose) and predicts everything else.
 *
 * <p>The rules, each in one method: a bind ({@link #bind}: rxe_check_bind_mw — the window's key as the poster
 * names it, a type 2 window FREE and given a region and a length, the range inside the region, C10-75), an
 * invalidation ({@link #invalidate}: rxe_check_invalidate_mw — the exact current key of a bound type 2 window,
 * o10-37.2.26), and a remote access ({@link #grants}: rxe_lookup_mw's key, QP (type 2), length, rights and state
 * checks, then IBTA 10.6.7's bounds: the access lies inside the window, not merely inside its region).
 */
final class WindowModel {
    /** The model's window: the device's current key, the handle's key, and what it grants. */
    static final class Window {
        final MwType type;
        /** The key the device has for it (moved by binds). */
        int deviceKey;
        /** The key the API handle holds ({@code mw->rkey}): moved by ibv_bind_mw only. */
        int handleKey;
        boolean valid;
        /** Region-relative range and rights while bound. */
        int start;
        int length;
        Set<AccessFlag> rights = EnumSet.noneOf(AccessFlag.class);
        /** Type 2: the QP generation it was bound by. */
        int boundBy = -1;
        /** The last range bound (kept after invalidation: where the generator aims accesses). */
        int lastStart;
        int lastLength;
        /** Keys this slot's windows had before (a stale key may equal a window's key again: the device decides). */
        final List<Integer> pastKeys = new ArrayList<>();

        Window(MwType type, int key) {
            this.type = type;
            this.deviceKey = key;
            this.handleKey = key;
            // rxe_alloc_mw: a type 1 window is VALID from allocation (with length 0), a type 2 window FREE.
            this.valid = type == MwType.TYPE_1;
        }
    }

    final int regionSize;
    final int guard;
    /** The responder's allocation: guard, region, guard. */
    final byte[] remote;
    /** The requester's buffer. */
    final byte[] local;
    final Window[] windows = new Window[2];
    /** Incremented each time the QP pair is replaced (after an error moved it to ERR). */
    int qpGeneration;

    WindowModel(int regionSize, int guard, byte[] remote, byte[] local) {
        this.regionSize = regionSize;
        this.guard = guard;
        this.remote = remote.clone();
        this.local = local.clone();
    }

    /** A window (re)allocated in slot {@code slot} with the key the device gave it; the old one's keys go stale. */
    void allocated(int slot, MwType type, int key) {
        Window old = windows[slot];
        Window fresh = new Window(type, key);
        if (old != null) {
            fresh.pastKeys.addAll(old.pastKeys);
            fresh.pastKeys.add(old.deviceKey);
            fresh.lastStart = old.lastStart;
            fresh.lastLength = old.lastLength;
        }
        windows[slot] = fresh;
    }

    /** The window whose current device key is {@code key}, or null: rxe_lookup_mw's {@code mw->rkey != rkey}. */
    Window byKey(int key) {
        for (Window w : windows) {
            if (w != null && w.deviceKey == key) {
                return w;
            }
        }
        return null;
    }

    /**
     * A bind of slot {@code slot}'s window to [{@code start}, +{@code length}) with {@code rights} under
     * {@code newKey}, posted naming the window by its handle's key; {@return whether it succeeds}.
     * {@code movesHandle}: ibv_bind_mw writes the new key into the handle whatever the completion says.
     */
    boolean bind(int slot, int newKey, int start, int length, Set<AccessFlag> rights, boolean movesHandle) {
        Window w = windows[slot];
        boolean ok = w.handleKey == w.deviceKey                 // rxe_bind_mw: mw->rkey != wqe mw_rkey → EINVAL
                && (w.type == MwType.TYPE_1 ? w.valid            // a type 1 window must be VALID
                        : !w.valid && length > 0)                // o10-37.2.30 FREE; o10-37.2.40 bound to something
                // C10-75: inside the region; rxe_bind_mw looks no region up for length 0 (an unbind), checks no range
                && (length == 0 || (long) start + length <= regionSize);
        if (movesHandle) {
            w.handleKey = newKey;
        }
        if (!ok) {
            return false;
        }
        if (w.deviceKey != newKey) {
            w.pastKeys.add(w.deviceKey);
        }
        w.deviceKey = newKey;
        w.valid = true;
        w.start = start;
        w.length = length;
        w.rights = rights.isEmpty() ? EnumSet.noneOf(AccessFlag.class) : EnumSet.copyOf(rights);
        w.boundBy = w.type == MwType.TYPE_2 ? qpGeneration : -1;
        if (length > 0) {
            w.lastStart = start;
            w.lastLength = length;
        }
        return true;
    }

    /** LOCAL_INV or SEND_WITH_INV of {@code key}; {@return whether it succeeds} (rxe_invalidate_mw). */
    boolean invalidate(int key) {
        Window w = byKey(key);
        if (w == null || !w.valid || w.type == MwType.TYPE_1) {
            return false;
        }
        w.valid = false;
        w.length = 0;
        w.rights = EnumSet.noneOf(AccessFlag.class);
        w.boundBy = -1;
        return true;
    }

    /** Whether a remote access of [{@code offset}, +{@code length}) (region-relative) needing {@code right} under {@code key} is allowed. */
    boolean grants(int key, long offset, int length, AccessFlag right) {
        Window w = byKey(key);
        if (w == null || !w.valid || w.length == 0 || !w.rights.contains(right)) {
            return false;
        }
        if (w.type == MwType.TYPE_2 && w.boundBy != qpGeneration) {
            return false; // IBTA 10.6.7.2.4: a type 2 window serves the QP it was bound by
        }
        return offset >= w.start && offset + length <= (long) w.start + w.length; // IBTA 10.6.7: inside the window
    }

    /** An allowed RDMA WRITE of the requester's bytes at {@code from}. */
    void write(long offset, int length, int from) {
        System.arraycopy(local, from, remote, (int) (guard + offset), length);
    }

    /** An allowed RDMA READ into the requester's bytes at {@code to}. */
    void read(long offset, int length, int to) {
        System.arraycopy(remote, (int) (guard + offset), local, to, length);
    }

    /** The 8-byte host-order value at a region offset, as the model has it. */
    long value(long offset) {
        return ReferenceModel.readLong(remote, (int) (guard + offset));
    }

    /** An allowed atomic: {@code stored} replaces the value when {@code replace}; the old value lands at {@code to}. */
    void atomic(long offset, boolean replace, long stored, int to) {
        long old = value(offset);
        if (replace) {
            ReferenceModel.writeLong(remote, (int) (guard + offset), stored);
        }
        ReferenceModel.writeLong(local, to, old);
    }

    /** Null when the memories match the model, else the first differences. */
    String diff(byte[] actualRemote, byte[] actualLocal) {
        String r = firstDifferences("responder allocation (region at offset " + guard + ")", remote, actualRemote);
        String l = firstDifferences("requester buffer", local, actualLocal);
        return r == null ? l : l == null ? r : r + "; " + l;
    }

    private static String firstDifferences(String name, byte[] expected, byte[] actual) {
        if (Arrays.equals(expected, actual)) {
            return null;
        }
        StringBuilder text = new StringBuilder(name).append(" differs:");
        int shown = 0;
        for (int i = 0; i < expected.length && shown < 8; i++) {
            if (expected[i] != actual[i]) {
                text.append(String.format(" @%d expected 0x%02x got 0x%02x", i, expected[i] & 0xFF, actual[i] & 0xFF));
                shown++;
            }
        }
        return text.toString();
    }
}
