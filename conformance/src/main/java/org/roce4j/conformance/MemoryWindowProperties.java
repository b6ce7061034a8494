package org.roce4j.conformance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.DeviceCapFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBind;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * Random sequences of binds (type 1 by {@code ibv_bind_mw}, type 2 by a BIND_MW work request; random ranges
 * inside and beyond the region, random rights), rebinds, invalidations (LOCAL_INV at the responder,
 * SEND_WITH_INV from the requester), reallocations, and remote RDMA WRITE / READ / FETCH_AND_ADD / CMP_AND_SWP
 * at offsets inside, straddling and outside a window, under its current key or a stale one, never let a remote
 * access reach outside the window's bounds or rights, or through an invalidated or stale window at all (IBTA
 * 10.6.7, C10-75, o10-37.2.26/30; Linux rxe_mw.c). Every operation's completion has the exact status
 * {@link WindowModel} predicts, and after every operation the responder's allocation (the region with 256 guard
 * bytes on each side) and the requester's buffer hold exactly the model's bytes: a refused WRITE or atomic
 * changes nothing, a refused READ returns nothing.
 *
 * <p>The region itself has no remote rights ({@code LOCAL_WRITE | MW_BIND}): only windows open it. An error
 * completion moves the RC pair to ERR, so the pair is replaced (a new QP generation: a type 2 window bound by
 * the old QP serves no other). A type 1 window whose bind failed is reallocated: {@code ibv_bind_mw} moved the
 * handle's key already and the API has no undo (rxe_bind_mw: "user has to undo this").
 *
 * <p>Before the random part, one fixed check: a WRITE across a window's end but inside its region is refused.
 * A device that lets it through (rxe: the check is against the region only) fails there, with one outcome
 * listed as a departure, rather than at a random example.
 *
 * <p>Replay: QuickTheories prints "Seed was N"; rerun with {@code -DQT_SEED=N}. Examples:
 * {@code -Droce4j.properties.examples} (default 100); shrink cycles: {@code -Droce4j.properties.shrinks}.
 */
@ExtendWith(Backend.Resolver.class)
class MemoryWindowProperties {
    static final int EXAMPLES = Integer.getInteger("roce4j.properties.examples", 100);
    static final int SHRINK_CYCLES = Integer.getInteger("roce4j.properties.shrinks", 1000);
    static final int MAX_ACTIONS = 16;
    static final int GUARD = 256;
    static final int MAX_ACCESS = 128;
    /** The requester's buffer: WRITE source at 0, READ and atomic results at {@link #INTO}. */
    static final int LOCAL_BYTES = 2 * MAX_ACCESS;
    static final int INTO = MAX_ACCESS;
    static final Set<AccessFlag> BINDABLE = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND);
    static final List<AccessFlag> RIGHTS = List.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC);
    static final QpCap CAP = QpCap.of(16, 16);

    private final Backend backend;

    MemoryWindowProperties(Backend backend) {
        this.backend = backend;
    }

    enum Kind { BIND, LOCAL_INV, SEND_INV, REALLOC, WRITE, READ, FETCH_ADD, CMP_SWP }

    /**
     * One generated action on window {@code slot} (0: type 1, 1: type 2). BIND: {@code a} start, {@code b}
     * length, {@code rights} bits of {@link #RIGHTS}, {@code key} 0 keeps the key byte, else ibv_inc_rkey (type 2).
     * Accesses and invalidations: {@code key} 0 the window's current key, k the k-th newest stale one; accesses:
     * {@code a} where (0 inside, 1 across the start, 2 across the end, 3 beside the window inside the region, 4
     * outside the region), {@code b} picks offset and length.
     */
    record Action(Kind kind, int slot, int a, int b, int rights, int key, long operand) {
        @Override
        public String toString() {
            return switch (kind) {
                case BIND -> "BIND w" + slot + " [" + a + "+" + b + ") rights " + rightsOf(rights)
                        + (slot == 1 ? (key == 0 ? " same key byte" : " inc key") : "");
                case REALLOC -> "REALLOC w" + slot;
                default -> kind + " w" + slot + (key == 0 ? " current key" : " stale key #" + key)
                        + (kind.ordinal() >= Kind.WRITE.ordinal() ? " where " + a + " pick " + b : "");
            };
        }
    }

    record Scenario(int regionSize, List<Action> actions, long memorySeed) {
        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("region of " + regionSize + " bytes, memory seed " + memorySeed);
            for (int i = 0; i < actions.size(); i++) {
                text.append(String.format("%n  #%d %s", i, actions.get(i)));
            }
            return text.toString();
        }
    }

    static Set<AccessFlag> rightsOf(int bits) {
        EnumSet<AccessFlag> set = EnumSet.noneOf(AccessFlag.class);
        for (int i = 0; i < RIGHTS.size(); i++) {
            if ((bits >>> i & 1) != 0) {
                set.add(RIGHTS.get(i));
            }
        }
        return set;
    }

    static Gen<Scenario> scenarios() {
        // Each scenario opens with a bind of each window inside the region, so that accesses meet bound windows.
        return integers().between(64, 2048).flatMap(n -> lists().of(action(n)).ofSizeBetween(1, MAX_ACTIONS)
                .zip(openingBind(n, 0), openingBind(n, 1), longs().all(), (actions, first, second, seed) -> {
                    List<Action> all = new java.util.ArrayList<>(List.of(first, second));
                    all.addAll(actions);
                    return new Scenario(n, List.copyOf(all), seed);
                }));
    }

    private static Gen<Action> action(int n) {
        Gen<Kind> kinds = Generate.frequency(List.of(
                Pair.of(4, Generate.constant(Kind.BIND)), Pair.of(2, Generate.constant(Kind.LOCAL_INV)),
                Pair.of(2, Generate.constant(Kind.SEND_INV)), Pair.of(1, Generate.constant(Kind.REALLOC)),
                Pair.of(4, Generate.constant(Kind.WRITE)), Pair.of(4, Generate.constant(Kind.READ)),
                Pair.of(2, Generate.constant(Kind.FETCH_ADD)), Pair.of(2, Generate.constant(Kind.CMP_SWP))));
        Gen<Integer> keys = Generate.frequency(List.of(Pair.of(3, Generate.constant(0)),
                Pair.of(1, integers().between(1, 3))));
        return kinds.flatMap(kind -> kind == Kind.BIND ? bind(n)
                : integers().between(0, 1).zip(integers().between(0, 4), integers().between(0, Integer.MAX_VALUE),
                        keys, (slot, a, b, key) -> new int[] {slot, a, b, key})
                        .zip(longs().all(), (v, operand) -> new Action(kind, v[0], v[1], v[2], 0, v[3], operand)));
    }

    private static Gen<Action> openingBind(int n, int slot) {
        return integers().between(0, n - 1).flatMap(start -> integers().between(1, n - start)
                .zip(rights(), integers().between(0, 1),
                        (length, r, key) -> new Action(Kind.BIND, slot, start, length, r, key, 0)));
    }

    private static Gen<Integer> rights() {
        return Generate.frequency(List.of(Pair.of(2, Generate.constant(7)), Pair.of(1, integers().between(0, 7))));
    }

    /** Binds mostly inside the region with every right (so that accesses have a window to meet), else anything. */
    private static Gen<Action> bind(int n) {
        Gen<int[]> inside = integers().between(0, n - 1).flatMap(start -> integers().between(1, n - start)
                .map(length -> new int[] {start, length}));
        Gen<int[]> anywhere = integers().between(0, n + 32).zip(integers().between(0, n + 32),
                (start, length) -> new int[] {start, length});
        Gen<int[]> ranges = Generate.frequency(List.of(Pair.of(3, inside), Pair.of(1, anywhere)));
        return ranges.zip(integers().between(0, 1), rights(), integers().between(0, 1),
                (range, slot, r, key) -> new Action(Kind.BIND, slot, range[0], range[1], r, key, 0));
    }

    @Test
    @DisplayName("IBTA 10.6.7: random bind / invalidate / access sequences never let a remote access through a window "
            + "reach outside its bounds or rights, or through an invalidated or stale window; each status as the model says")
    void windowsNeverLeakOutsideTheirBoundsAndRights() throws Exception {
        requireWindows();
        accessAcrossTheWindowEndIsRefused();
        qt().withExamples(EXAMPLES).withShrinkCycles(SHRINK_CYCLES)
                .forAll(scenarios())
                .checkAssert(this::runUnchecked);
    }

    private void requireWindows() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Set<DeviceCapFlag> caps = e.context.queryDevice().deviceCapFlags();
            assumeTrue(caps.contains(DeviceCapFlag.MEM_WINDOW) && caps.contains(DeviceCapFlag.MEM_WINDOW_TYPE_2B),
                    "the device does not report MEM_WINDOW and MEM_WINDOW_TYPE_2B");
        }
    }

    /** The fixed check: a 16-byte WRITE across the end of a 256-byte window inside its region (wr_id 1). */
    private void accessAcrossTheWindowEndIsRefused() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024, CAP, QpPair.remoteAccess());
            Mr region = b.register(1024, BINDABLE);
            Bytes.canary(region.segment());
            Mr src = a.register(64);
            Mw mw = b.track(b.pd.allocMw(MwType.TYPE_1));
            pair.qpB.bindMw(mw, new MwBind(9, SendFlag.SIGNALED.bit(),
                    new MwBindInfo(region, region.address() + 256, 256, EnumSet.copyOf(RIGHTS))));
            Expect.success(Completions.awaitOne(b.cq), 9, WcOpcode.BIND_MW);
            pair.qpA.postSend(SendWr.rdmaWrite(1, src, 0, 16, region.address() + 512 - 8, mw.rkey()));
            Expect.status(Completions.awaitOne(a.cq), 1, WcStatus.REM_ACCESS_ERR);
            Bytes.assertUntouched(region.segment(), 0, 1024, "region behind the window");
        }
    }

    private void runUnchecked(Scenario scenario) {
        try {
            new Run(scenario).run();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One scenario against the backend, step by step with the model. */
    private final class Run {
        final Scenario s;
        final WindowModel model;
        final MemorySegment remoteMemory;
        final MemorySegment localMemory;
        Endpoint a;
        Endpoint b;
        Mr region;
        Mr local;
        Mr receive;
        final Mw[] mws = new Mw[2];
        QpPair pair;
        long wrId = 100;

        Run(Scenario s) {
            this.s = s;
            SplittableRandom random = new SplittableRandom(s.memorySeed());
            byte[] remote = new byte[GUARD + s.regionSize() + GUARD];
            byte[] localBytes = new byte[LOCAL_BYTES];
            random.nextBytes(remote);
            random.nextBytes(localBytes);
            model = new WindowModel(s.regionSize(), GUARD, remote, localBytes);
            a = Endpoint.first(backend);
            b = Endpoint.second(backend);
            remoteMemory = b.allocate(remote.length);
            MemorySegment.copy(remote, 0, remoteMemory, ValueLayout.JAVA_BYTE, 0, remote.length);
            localMemory = a.allocate(LOCAL_BYTES);
            MemorySegment.copy(localBytes, 0, localMemory, ValueLayout.JAVA_BYTE, 0, LOCAL_BYTES);
        }

        void run() throws Exception {
            try (Endpoint first = a; Endpoint second = b) {
                region = b.track(b.pd.regMr(remoteMemory.asSlice(GUARD, s.regionSize()), BINDABLE));
                local = a.track(a.pd.regMr(localMemory, Endpoint.ALL_ACCESS));
                receive = b.register(64);
                allocate(0);
                allocate(1);
                pair = connect();
                for (int i = 0; i < s.actions().size(); i++) {
                    step(i, s.actions().get(i));
                }
            }
        }

        private QpPair connect() {
            return QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024, CAP, QpPair.remoteAccess());
        }

        private void allocate(int slot) {
            if (mws[slot] != null) {
                b.untrack(mws[slot]);
                mws[slot].close();
            }
            MwType type = slot == 0 ? MwType.TYPE_1 : MwType.TYPE_2;
            mws[slot] = b.track(b.pd.allocMw(type));
            model.allocated(slot, type, mws[slot].rkey());
        }

        private void step(int index, Action t) {
            String where = "action #" + index + " (" + t + ")";
            boolean failed = switch (t.kind()) {
                case BIND -> bind(where, t);
                case LOCAL_INV -> localInvalidate(where, t);
                case SEND_INV -> sendInvalidate(where, t);
                case REALLOC -> {
                    allocate(t.slot());
                    yield false;
                }
                default -> access(where, t);
            };
            if (failed) {
                // The error moved the pair to ERR: carry on with a new one (a new QP generation).
                pair = connect();
                model.qpGeneration++;
            }
            String difference = model.diff(remoteMemory.toArray(ValueLayout.JAVA_BYTE),
                    localMemory.toArray(ValueLayout.JAVA_BYTE));
            if (difference != null) {
                throw new AssertionError("after " + where + ": memory differs from the model: " + difference);
            }
        }

        /** {@return true when the bind failed (MW_BIND_ERR, the pair is in ERR)} */
        private boolean bind(String where, Action t) {
            long id = wrId++;
            Mw mw = mws[t.slot()];
            Set<AccessFlag> rights = rightsOf(t.rights());
            MwBindInfo info = new MwBindInfo(region, region.address() + t.a(), t.b(), rights);
            boolean ok;
            if (t.slot() == 0) {
                int newKey = Mw.incRkey(mw.rkey());
                ok = model.bind(0, newKey, t.a(), t.b(), rights, true);
                pair.qpB.bindMw(mw, new MwBind(id, SendFlag.SIGNALED.bit(), info));
            } else {
                int newKey = t.key() == 0 ? mw.rkey() : Mw.incRkey(mw.rkey());
                ok = model.bind(1, newKey, t.a(), t.b(), rights, false);
                pair.qpB.postSend(SendWr.bindMw(id, mw, newKey, info));
            }
            expect(where, awaitCurrent(b.cq, pair.qpB.qpNum()), id, WcOpcode.BIND_MW, ok ? WcStatus.SUCCESS : WcStatus.MW_BIND_ERR);
            if (!ok && t.slot() == 0) {
                allocate(0); // the handle's key moved with no way back: a fresh window
            }
            return !ok;
        }

        private boolean localInvalidate(String where, Action t) {
            long id = wrId++;
            int key = key(t);
            boolean ok = model.invalidate(key);
            pair.qpB.postSend(SendWr.localInv(id, key));
            expect(where, awaitCurrent(b.cq, pair.qpB.qpNum()), id, WcOpcode.LOCAL_INV,
                    ok ? WcStatus.SUCCESS : WcStatus.LOC_QP_OP_ERR);
            return !ok;
        }

        /** SEND_WITH_INV of 8 bytes; a failed invalidation is NAKed invalid request (IBTA 9.4.4, rxe_resp.c). */
        private boolean sendInvalidate(String where, Action t) {
            long id = wrId++;
            int key = key(t);
            boolean ok = model.invalidate(key);
            pair.qpB.postRecv(RecvWr.of(id, receive, 0, 64));
            pair.qpA.postSend(SendWr.send(id, local, 0, 8).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(key));
            expect(where, awaitCurrent(a.cq, pair.qpA.qpNum()), id, WcOpcode.SEND,
                    ok ? WcStatus.SUCCESS : WcStatus.REM_INV_REQ_ERR);
            if (ok) {
                expect(where + " at the responder", awaitCurrent(b.cq, pair.qpB.qpNum()), id, WcOpcode.RECV,
                        WcStatus.SUCCESS);
            }
            return !ok;
        }

        private boolean access(String where, Action t) {
            long id = wrId++;
            int key = key(t);
            boolean atomic = t.kind() == Kind.FETCH_ADD || t.kind() == Kind.CMP_SWP;
            int size = model.windows[t.slot()].lastLength;
            // inside: no longer than the window, so that it fits
            int length = atomic ? 8 : 1 + t.b() % (t.a() == 0 && size > 0 ? Math.min(size, MAX_ACCESS) : MAX_ACCESS);
            long offset = offset(t, length, atomic);
            AccessFlag right = switch (t.kind()) {
                case WRITE -> AccessFlag.REMOTE_WRITE;
                case READ -> AccessFlag.REMOTE_READ;
                default -> AccessFlag.REMOTE_ATOMIC;
            };
            boolean ok = model.grants(key, offset, length, right);
            long va = region.address() + offset;
            SendWr wr;
            WcOpcode opcode;
            switch (t.kind()) {
                case WRITE -> {
                    wr = SendWr.rdmaWrite(id, local, 0, length, va, key);
                    opcode = WcOpcode.RDMA_WRITE;
                    if (ok) {
                        model.write(offset, length, 0);
                    }
                }
                case READ -> {
                    wr = SendWr.rdmaRead(id, local, INTO, length, va, key);
                    opcode = WcOpcode.RDMA_READ;
                    if (ok) {
                        model.read(offset, length, INTO);
                    }
                }
                case FETCH_ADD -> {
                    wr = SendWr.fetchAndAdd(id, local, INTO, va, key, t.operand());
                    opcode = WcOpcode.FETCH_ADD;
                    if (ok) {
                        model.atomic(offset, true, model.value(offset) + t.operand(), INTO);
                    }
                }
                default -> {
                    // Compare with what the model says is there, so that a missed check would visibly swap.
                    long current = inAllocation(offset) ? model.value(offset) : 0;
                    wr = new SendWr().wrId(id).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).signaled(true)
                            .sge(local, INTO, 8).remote(va, key).compareAdd(current).swap(t.operand());
                    opcode = WcOpcode.COMP_SWAP;
                    if (ok) {
                        model.atomic(offset, true, t.operand(), INTO);
                    }
                }
            }
            pair.qpA.postSend(wr);
            expect(where + " at region offset " + offset + " length " + length, awaitCurrent(a.cq, pair.qpA.qpNum()),
                    id, opcode, ok ? WcStatus.SUCCESS : WcStatus.REM_ACCESS_ERR);
            return !ok;
        }

        private boolean inAllocation(long offset) {
            return offset >= -GUARD && offset + 8 <= s.regionSize() + GUARD;
        }

        /** The region offset an access aims at, from where the window was last bound (see {@link Action}). */
        private long offset(Action t, int length, boolean atomic) {
            WindowModel.Window w = model.windows[t.slot()];
            int start = w.lastStart;
            int size = w.lastLength;
            int n = s.regionSize();
            int pick = t.b() / MAX_ACCESS;
            // by one byte a quarter of the time: the edges are where off-by-one checks fail
            int across = pick % 4 == 0 ? 1 : 1 + pick / 4 % Math.max(1, length - 1);
            long offset = switch (t.a()) {
                case 0 -> start + (size >= length ? pick % (size - length + 1) : 0);
                case 1 -> start - across;
                case 2 -> (long) start + size - length + across;
                case 3 -> start + size + length <= n ? start + size + pick % (n - start - size - length + 1)
                        : start >= length ? pick % (start - length + 1) : n;
                default -> pick % 2 == 0 ? n + pick % 64 : -length - pick % 64;
            };
            return atomic ? Math.floorDiv(offset, 8) * 8 : offset;
        }

        /** The window's current key, or its k-th newest stale one (the current one when it has none that old). */
        private int key(Action t) {
            WindowModel.Window w = model.windows[t.slot()];
            List<Integer> past = w.pastKeys;
            return t.key() == 0 || past.size() < t.key() ? w.deviceKey : past.get(past.size() - t.key());
        }
    }

    /** The next completion of the current pair's QP; completions of pairs replaced after an error are dropped. */
    private static WorkCompletion awaitCurrent(org.roce4j.verbs.Cq cq, int qpNum) {
        while (true) {
            WorkCompletion wc = Completions.awaitOne(cq);
            if (wc.qpNum() == qpNum) {
                return wc;
            }
        }
    }

    private static void expect(String where, WorkCompletion wc, long wrId, WcOpcode opcode, WcStatus status) {
        boolean right = wc.wrId() == wrId && wc.status() == status
                && (status != WcStatus.SUCCESS || wc.opcode() == opcode);
        if (!right) {
            throw new AssertionError(where + ": expected wr_id " + wrId + " " + opcode + " " + status + ", got " + wc);
        }
    }
}
