package org.roce4j.conformance;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.roce4j.conformance.ReferenceModel.Slice;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.DeviceCapFlag;
import org.roce4j.verbs.DeviceCapFlagEx;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * Random mixes of work requests — random opcodes valid for the QP type, random lengths from 0 to a
 * few path MTUs, local data split over 1 to 4 SGEs in two regions, random remote offsets, signaled
 * or not, random immediates — leave both memories exactly as {@link ReferenceModel} says, and
 * produce exactly one send completion per signaled WR, in posting order (IBTA 10.8.3.1: send
 * completions of a QP are returned in order; 10.7.4.2 unsignaled WRs complete silently), and one
 * receive completion per SEND / RDMA WRITE with immediate, in order, with the right byte_len and
 * imm_data (IBTA 9.4.1, 9.4.3; UD byte_len counts the 40-byte GRH, 11.4.1.2).
 *
 * <p>Every operation gets memory of its own (its local SGEs, its remote slice, its receive buffer do
 * not overlap anything another operation touches), so the outcome is the same whatever order the
 * RNIC executes the operations in; RC ordering is not what these properties test.
 *
 * <p>Each scenario ends with a signaled SEND with immediate. RC and UC deliver a QP's messages in
 * order, so once its receive completion is polled at B every earlier operation has been executed at
 * B (a UC RDMA WRITE has no other signal), and once its send completion is polled at A every earlier
 * READ and atomic response has landed at A.
 *
 * <p>Replay: QuickTheories prints "Seed was N" with the smallest falsifying scenario; rerun with
 * {@code -DQT_SEED=N}. Examples per property: {@code -Droce4j.properties.examples} (default 100); shrink cycles: {@code -Droce4j.properties.shrinks} (default 1000).
 */
@ExtendWith(Backend.Resolver.class)
class WorkRequestMixProperties {
    static final int EXAMPLES = Integer.getInteger("roce4j.properties.examples", 100);
    static final int SHRINK_CYCLES = Integer.getInteger("roce4j.properties.shrinks", 1000);
    /** Random operations before the closing SEND with immediate. */
    static final int MAX_OPS = 16;
    static final int MAX_SGES = 4;
    /** Registered regions per side. */
    static final int REGIONS = 2;
    /** Untouched bytes after the last slice of each region: a write past its slice shows up here. */
    static final int TAIL = 64;
    static final QpCap CAP = new QpCap(64, 64, MAX_SGES, MAX_SGES, 0);
    static final Set<AccessFlag> REMOTE_RIGHTS =
            EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    /** What an RC mix with ATOMIC WRITEs creates its extended QPs for. */
    static final Set<SendOpsFlag> RC_SEND_OPS = EnumSet.of(SendOpsFlag.SEND, SendOpsFlag.SEND_WITH_IMM,
            SendOpsFlag.SEND_WITH_INV, SendOpsFlag.RDMA_WRITE, SendOpsFlag.RDMA_WRITE_WITH_IMM, SendOpsFlag.RDMA_READ,
            SendOpsFlag.ATOMIC_CMP_AND_SWP, SendOpsFlag.ATOMIC_FETCH_AND_ADD, SendOpsFlag.ATOMIC_WRITE);

    private final Backend backend;

    WorkRequestMixProperties(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("RC: random mixes of SEND(+IMM, +INV of a window), WRITE(+IMM), READ, FETCH_ADD, CMP_SWP and ATOMIC WRITE, "
            + "directly or through type 2 windows bound for them, match the reference model (IBTA 9.4, 10.6.7, 10.8.3)")
    void rcMixesMatchTheModel() {
        check(QpType.RC);
    }

    @Test
    @DisplayName("UC: random mixes of SEND(+IMM) and WRITE(+IMM) match the reference model (IBTA 9.4, 10.8.3)")
    void ucMixesMatchTheModel() {
        check(QpType.UC);
    }

    @Test
    @DisplayName("UD: random SEND(+IMM) up to the MTU land after the 40-byte GRH as the reference model says (IBTA 11.4.1.2)")
    void udMixesMatchTheModel() {
        check(QpType.UD);
    }

    private void check(QpType type) {
        int udMtu = type == QpType.UD ? activeMtu() : 0;
        Features features = type == QpType.RC ? features() : Features.NONE;
        qt().withExamples(EXAMPLES).withShrinkCycles(SHRINK_CYCLES)
                .forAll(scenarios(type, udMtu, features))
                .checkAssert(this::runUnchecked);
    }

    /** What the device reports: decides whether windows and ATOMIC WRITEs join the RC mix. */
    private Features features() {
        try (Endpoint a = Endpoint.first(backend)) {
            Set<DeviceCapFlag> caps = a.context.queryDevice().deviceCapFlags();
            return new Features(caps.contains(DeviceCapFlag.MEM_WINDOW) && caps.contains(DeviceCapFlag.MEM_WINDOW_TYPE_2B),
                    a.context.queryDeviceCapFlagsEx().contains(DeviceCapFlagEx.ATOMIC_WRITE));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The UD message limit: the port's active MTU (UD QPs have no path MTU of their own). */
    private int activeMtu() {
        try (Endpoint a = Endpoint.first(backend)) {
            return a.context.queryPort(Endpoint.PORT).activeMtu().bytes();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Scenarios

    /** One SGE as generated: which region, bytes skipped after the previous slice there, length. */
    record Sge(int region, int gap, int length) {
    }

    /** One send WR as generated; {@code receive} is the receive WR posted for it at B (SENDs, WRITE_WITH_IMM). */
    record Op(WrOpcode opcode, int length, List<Sge> local, int remoteRegion, int remoteGap, boolean signaled,
              int imm, long operand, long swap, boolean compareMatches, List<Sge> receive, boolean viaWindow) {
        boolean consumesReceive() {
            return opcode.isSend() || opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder().append(opcode).append(" len=").append(length)
                    .append(signaled ? " signaled" : " unsignaled").append(" local=").append(local);
            if (opcode.targetsRemoteMemory()) {
                text.append(" remote=r").append(remoteRegion).append("+gap").append(remoteGap)
                        .append(viaWindow ? " through a type 2 window" : "");
            }
            if (opcode == WrOpcode.ATOMIC_WRITE) {
                text.append(" value=").append(operand);
            }
            if (opcode.hasImmediate()) {
                text.append(" imm=0x").append(Integer.toHexString(imm));
            }
            if (opcode == WrOpcode.ATOMIC_FETCH_AND_ADD) {
                text.append(" add=").append(operand);
            }
            if (opcode == WrOpcode.ATOMIC_CMP_AND_SWP) {
                text.append(compareMatches ? " compare=<current>" : " compare=" + operand).append(" swap=").append(swap);
            }
            if (consumesReceive()) {
                text.append(" recv=").append(receive);
            }
            return text.toString();
        }
    }

    record Scenario(QpType type, Mtu mtu, List<Op> ops, long memorySeed, long wrIdBase) {
        @Override
        public String toString() {
            StringBuilder text = new StringBuilder().append(type).append(" path MTU ").append(mtu.bytes())
                    .append(", memory seed ").append(memorySeed).append(", wr_id base ").append(wrIdBase);
            for (int i = 0; i < ops.size(); i++) {
                text.append(String.format("%n  op #%d: %s", i, ops.get(i)));
            }
            return text.toString();
        }
    }

    /**
     * What the device reports it has, which decides what the RC mix may hold: type 2 memory windows
     * (IBV_DEVICE_MEM_WINDOW_TYPE_2B: accesses through windows, SEND_WITH_INV) and ATOMIC WRITE
     * (IB_UVERBS_DEVICE_ATOMIC_WRITE in device_cap_flags_ex).
     */
    record Features(boolean windows, boolean atomicWrite) {
        static final Features NONE = new Features(false, false);
    }

    static Gen<Scenario> scenarios(QpType type, int udMtu, Features features) {
        Gen<Mtu> mtus = type == QpType.UD ? Generate.constant(Mtu.ofBytes(udMtu)) : Generate.enumValues(Mtu.class);
        return mtus.flatMap(mtu -> lists().of(op(type, mtu.bytes(), opcodes(type, features), features))
                        .ofSizeBetween(1, MAX_OPS)
                .zip(op(type, mtu.bytes(), List.of(WrOpcode.SEND_WITH_IMM), Features.NONE), longs().all(), longs().all(),
                        (ops, closing, seed, wrIdBase) -> {
                            List<Op> all = new ArrayList<>(ops);
                            all.add(signaled(closing));
                            return new Scenario(type, mtu, List.copyOf(all), seed, wrIdBase);
                        }));
    }

    private static List<WrOpcode> opcodes(QpType type, Features features) {
        return switch (type) {
            case RC -> {
                List<WrOpcode> rc = new ArrayList<>(List.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
                        WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_FETCH_AND_ADD,
                        WrOpcode.ATOMIC_CMP_AND_SWP));
                if (features.windows()) {
                    rc.add(WrOpcode.SEND_WITH_INV);
                }
                if (features.atomicWrite()) {
                    rc.add(WrOpcode.ATOMIC_WRITE);
                }
                yield List.copyOf(rc);
            }
            case UC -> List.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM);
            case UD -> List.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM);
        };
    }

    private static Op signaled(Op op) {
        return new Op(op.opcode(), op.length(), op.local(), op.remoteRegion(), op.remoteGap(), true, op.imm(),
                op.operand(), op.swap(), op.compareMatches(), op.receive(), false);
    }

    private static Gen<Op> op(QpType type, int mtu, List<WrOpcode> opcodes, Features features) {
        return Generate.pick(opcodes).flatMap(opcode -> length(opcode, type, mtu).flatMap(length ->
                // ATOMIC_WRITE's 8 bytes come with the request (ibv_wr_atomic_write), not from an SGE
                sges(opcode == WrOpcode.ATOMIC_WRITE ? 0 : length, opcode.isAtomic() ? 1 : MAX_SGES).flatMap(local ->
                        receive(opcode, type, length).flatMap(receive ->
                                integers().between(0, REGIONS - 1).zip(integers().between(0, 63), booleans().all(),
                                        integers().all(), (region, gap, signaled, imm) -> new int[] {
                                                region, gap, signaled ? 1 : 0, imm})
                                        .zip(longs().all(), longs().all(), booleans().all(),
                                                (r, operand, swap, matches) -> new Op(opcode, length, local, r[0], r[1],
                                                        r[2] == 1, r[3], operand, swap, matches, receive, false))
                                        .flatMap(op -> windowed(op, features))))));
    }

    /** Half the remote operations of a device with type 2 windows go through a window (a window has a length). */
    private static Gen<Op> windowed(Op op, Features features) {
        if (!features.windows() || !op.opcode().targetsRemoteMemory() || op.length() == 0) {
            return Generate.constant(op);
        }
        return booleans().all().map(window -> new Op(op.opcode(), op.length(), op.local(), op.remoteRegion(),
                op.remoteGap(), op.signaled(), op.imm(), op.operand(), op.swap(), op.compareMatches(), op.receive(),
                window));
    }

    /** Lengths from 0 to a few MTUs, with weight on small messages and on MTU multiples ±1 (packet boundaries). */
    private static Gen<Integer> length(WrOpcode opcode, QpType type, int mtu) {
        if (opcode.isAtomic() || opcode == WrOpcode.ATOMIC_WRITE) {
            return Generate.constant(8);
        }
        int max = type == QpType.UD ? mtu : 3 * mtu + 64;
        Gen<Integer> boundaries = type == QpType.UD
                ? integers().between(mtu - 1, mtu)
                : integers().between(1, 3).zip(integers().between(-1, 1), (k, d) -> k * mtu + d);
        return Generate.frequency(List.of(
                Pair.of(3, integers().between(0, 32)),
                Pair.of(4, integers().between(0, max)),
                Pair.of(3, boundaries)));
    }

    /** Receive SGEs big enough for the message (and the GRH on UD), 1 to 4 of them; WRITE_WITH_IMM: 0 to 2 that must stay untouched. */
    private static Gen<List<Sge>> receive(WrOpcode opcode, QpType type, int length) {
        if (opcode == WrOpcode.RDMA_WRITE_WITH_IMM) {
            return lists().of(integers().between(0, REGIONS - 1).zip(integers().between(0, 63),
                    integers().between(1, 64), Sge::new)).ofSizeBetween(0, 2);
        }
        if (!opcode.isSend()) {
            return Generate.constant(List.of());
        }
        int needed = length + (type == QpType.UD ? ReferenceModel.GRH_BYTES : 0);
        return integers().between(0, 64).flatMap(extra -> sges(needed + extra, MAX_SGES));
    }

    /** {@code total} bytes over 1..max SGEs of at least one byte each (none for 0 bytes), at random gaps in random regions. */
    private static Gen<List<Sge>> sges(int total, int max) {
        if (total == 0) {
            return Generate.constant(List.of());
        }
        Gen<int[]> part = integers().between(0, REGIONS - 1).zip(integers().between(0, 63), integers().between(1, 100),
                (region, gap, weight) -> new int[] {region, gap, weight});
        return lists().of(part).ofSizeBetween(1, Math.min(max, total)).map(parts -> {
            long weights = parts.stream().mapToLong(p -> p[2]).sum();
            int spare = total - parts.size();
            List<Sge> sges = new ArrayList<>();
            int given = 0;
            for (int i = 0; i < parts.size(); i++) {
                int[] p = parts.get(i);
                int extra = i == parts.size() - 1 ? spare - given : (int) (spare * p[2] / weights);
                given += extra;
                sges.add(new Sge(p[0], p[1], 1 + extra));
            }
            return List.copyOf(sges);
        });
    }

    // ---------------------------------------------------------------------------------------------
    // Layout: every slice of every operation at its own place

    /** An operation with its memory laid out. */
    record Placed(int index, Op op, List<Slice> local, Slice remote, List<Slice> receive, long wrId, long recvWrId) {
    }

    record Layout(int[] localSizes, int[] remoteSizes, List<Placed> ops) {
        static Layout of(Scenario scenario) {
            int[] localCursor = new int[REGIONS];
            int[] remoteCursor = new int[REGIONS];
            List<Placed> placed = new ArrayList<>();
            for (int i = 0; i < scenario.ops().size(); i++) {
                Op op = scenario.ops().get(i);
                List<Slice> local = place(op.local(), localCursor);
                Slice remote = null;
                if (op.opcode().targetsRemoteMemory()) {
                    int r = op.remoteRegion();
                    int offset;
                    if (op.opcode().isAtomic() || op.opcode() == WrOpcode.ATOMIC_WRITE) {
                        // IBTA 9.4.5: an atomic's remote address is 8-byte aligned (the regions are), ATOMIC WRITE's too.
                        offset = (remoteCursor[r] + 7) / 8 * 8 + 8 * (op.remoteGap() % 8);
                    } else {
                        offset = remoteCursor[r] + op.remoteGap();
                    }
                    remote = new Slice(r, offset, op.length());
                    remoteCursor[r] = offset + op.length();
                }
                List<Slice> receive = op.consumesReceive() ? place(op.receive(), remoteCursor) : List.of();
                long wrId = scenario.wrIdBase() + i;
                placed.add(new Placed(i, op, local, remote, receive, wrId, ~wrId));
            }
            return new Layout(sizes(localCursor), sizes(remoteCursor), List.copyOf(placed));
        }

        private static List<Slice> place(List<Sge> sges, int[] cursor) {
            List<Slice> slices = new ArrayList<>();
            for (Sge sge : sges) {
                int offset = cursor[sge.region()] + sge.gap();
                slices.add(new Slice(sge.region(), offset, sge.length()));
                cursor[sge.region()] = offset + sge.length();
            }
            return List.copyOf(slices);
        }

        private static int[] sizes(int[] cursors) {
            int[] sizes = new int[cursors.length];
            for (int i = 0; i < cursors.length; i++) {
                sizes[i] = cursors[i] + TAIL;
            }
            return sizes;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Running a scenario against the backend

    /** A completion the model expects; {@code byteLen} -1 when the verbs spec leaves it undefined. */
    record Expected(int op, long wrId, WcOpcode opcode, int byteLen, boolean withImm, int imm) {
    }

    private void runUnchecked(Scenario scenario) {
        try {
            run(scenario);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    void run(Scenario scenario) throws Exception {
        Layout layout = Layout.of(scenario);
        ReferenceModel model = new ReferenceModel(layout.localSizes(), layout.remoteSizes(), scenario.memorySeed());
        boolean ud = scenario.type() == QpType.UD;
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            // A region that lends itself to windows says so (IBTA C10-73: MW_BIND), only when the mix has windows.
            boolean windowed = scenario.ops().stream().anyMatch(o -> o.viaWindow() || o.opcode() == WrOpcode.SEND_WITH_INV);
            Set<AccessFlag> responderAccess = EnumSet.copyOf(Endpoint.ALL_ACCESS);
            if (windowed) {
                responderAccess.add(AccessFlag.MW_BIND);
            }
            MemorySegment[] aMemory = new MemorySegment[REGIONS];
            MemorySegment[] bMemory = new MemorySegment[REGIONS];
            Mr[] aMr = new Mr[REGIONS];
            Mr[] bMr = new Mr[REGIONS];
            for (int r = 0; r < REGIONS; r++) {
                aMemory[r] = filled(a, model.initialLocal(r));
                bMemory[r] = filled(b, model.initialRemote(r));
                aMr[r] = a.track(a.pd.regMr(aMemory[r], Endpoint.ALL_ACCESS));
                bMr[r] = b.track(b.pd.regMr(bMemory[r], responderAccess));
            }
            boolean atomicWrites = scenario.ops().stream().anyMatch(o -> o.opcode() == WrOpcode.ATOMIC_WRITE);
            QpPair pair = atomicWrites
                    ? QpPair.connectEx(a, b, scenario.type(), scenario.mtu(), CAP, REMOTE_RIGHTS, RC_SEND_OPS)
                    : QpPair.connect(a, b, scenario.type(), scenario.mtu(), CAP, REMOTE_RIGHTS);
            MixWindows windows = new MixWindows(a, b, pair, model);

            List<RecvWr> receives = new ArrayList<>();
            List<SendWr> sends = new ArrayList<>();
            List<Expected> sendCompletions = new ArrayList<>();
            List<Expected> receiveCompletions = new ArrayList<>();
            for (Placed p : layout.ops()) {
                Op op = p.op();
                SendWr wr = new SendWr().wrId(p.wrId()).opcode(op.opcode()).signaled(op.signaled());
                for (Slice s : p.local()) {
                    wr.sge(aMr[s.region()], s.offset(), s.length());
                }
                if (op.opcode().hasImmediate()) {
                    wr.immData(op.imm());
                }
                if (p.remote() != null) {
                    Mr target = bMr[p.remote().region()];
                    long address = target.address() + p.remote().offset();
                    wr.remote(address, op.viaWindow() ? windows.bind(target, address, op.length(), op.opcode() == WrOpcode.RDMA_READ) : target.rkey());
                }
                if (ud) {
                    wr.ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY);
                }
                switch (op.opcode()) {
                    case SEND, SEND_WITH_IMM -> model.send(p.index(), p.local(), p.receive(), ud);
                    case SEND_WITH_INV -> {
                        model.send(p.index(), p.local(), p.receive(), ud);
                        wr.invalidateRkey(windows.invalidateBySend(bMr[0]));
                    }
                    case ATOMIC_WRITE -> {
                        wr.compareAdd(op.operand()); // the 8 bytes, handed to ibv_wr_atomic_write when posted
                        model.atomicWrite(p.index(), p.remote(), op.operand());
                    }
                    case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> model.write(p.index(), p.local(), p.remote());
                    case RDMA_READ -> model.read(p.index(), p.local(), p.remote());
                    case ATOMIC_FETCH_AND_ADD -> {
                        wr.compareAdd(op.operand());
                        model.fetchAndAdd(p.index(), p.local().getFirst(), p.remote(), op.operand());
                    }
                    case ATOMIC_CMP_AND_SWP -> {
                        long compare = op.compareMatches() ? model.remoteLong(p.remote()) : op.operand();
                        wr.compareAdd(compare).swap(op.swap());
                        model.compareAndSwap(p.index(), p.local().getFirst(), p.remote(), compare, op.swap());
                    }
                    default -> throw new IllegalStateException("not generated: " + op.opcode());
                }
                sends.add(wr);
                if (op.signaled()) {
                    sendCompletions.add(new Expected(p.index(), p.wrId(), op.opcode().completionOpcode(),
                            op.opcode() == WrOpcode.RDMA_READ ? op.length() : -1, false, 0));
                }
                if (op.consumesReceive()) {
                    RecvWr recv = new RecvWr().wrId(p.recvWrId());
                    for (Slice s : p.receive()) {
                        recv.sge(bMr[s.region()], s.offset(), s.length());
                    }
                    receives.add(recv);
                    boolean send = op.opcode().isSend();
                    receiveCompletions.add(new Expected(p.index(), p.recvWrId(),
                            send ? WcOpcode.RECV : WcOpcode.RECV_RDMA_WITH_IMM,
                            op.length() + (ud ? ReferenceModel.GRH_BYTES : 0), op.opcode().hasImmediate(), op.imm()));
                }
            }

            windows.awaitBinds();
            pair.qpB.postRecv(receives);
            post(pair, sends);
            List<WorkCompletion> sent = Completions.await(a.cq, sendCompletions.size());
            List<WorkCompletion> received = Completions.await(b.cq, receiveCompletions.size());

            checkCompletions("send queue of A", sendCompletions, sent, pair.qpA.qpNum(), -1, false);
            checkCompletions("receive queue of B", receiveCompletions, received, pair.qpB.qpNum(),
                    ud ? pair.qpA.qpNum() : -1, ud);
            checkNoMore("A", a.cq.poll(8));
            checkNoMore("B", b.cq.poll(8));

            StringBuilder differences = new StringBuilder();
            byte[][] actualRemote = new byte[REGIONS][];
            for (int r = 0; r < REGIONS; r++) {
                append(differences, model.diffLocal(r, aMemory[r].toArray(ValueLayout.JAVA_BYTE)));
                actualRemote[r] = bMemory[r].toArray(ValueLayout.JAVA_BYTE);
                append(differences, model.diffRemote(r, actualRemote[r]));
            }
            if (!differences.isEmpty()) {
                throw new AssertionError("memory after the run differs from the reference model:" + differences);
            }
            windows.invalidateTheRestAndProbe(bMemory, aMr[0]);
            if (ud) {
                for (Placed p : layout.ops()) {
                    checkGrh(p, ReferenceModel.collect(actualRemote, p.receive()), a.gid(), b.gid());
                }
            }
        }
    }

    /**
     * Posts the send WRs in order: runs of them with ibv_post_send, each ATOMIC_WRITE with the ibv_wr_* builder
     * (libibverbs has it there only: ibv_wr_atomic_write), on the same send queue, so the order holds.
     */
    private static void post(QpPair pair, List<SendWr> sends) {
        List<SendWr> run = new ArrayList<>();
        for (SendWr wr : sends) {
            if (wr.opcode() != WrOpcode.ATOMIC_WRITE) {
                run.add(wr);
                continue;
            }
            if (!run.isEmpty()) {
                pair.qpA.postSend(run);
                run = new ArrayList<>();
            }
            QpEx qp = pair.exA();
            MemorySegment value = pair.a.allocate(8);
            value.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, wr.compareAdd());
            qp.wrStart();
            qp.wrId(wr.wrId());
            qp.wrFlags(wr.sendFlags());
            qp.wrAtomicWrite(wr.rkey(), wr.remoteAddr(), value);
            int errno = qp.wrComplete();
            if (errno != 0) {
                throw new AssertionError("ibv_wr_complete of the ATOMIC_WRITE wr_id " + wr.wrId() + ": errno " + errno);
            }
        }
        if (!run.isEmpty()) {
            pair.qpA.postSend(run);
        }
    }

    private static MemorySegment filled(Endpoint endpoint, byte[] contents) {
        MemorySegment memory = endpoint.allocate(contents.length);
        MemorySegment.copy(contents, 0, memory, ValueLayout.JAVA_BYTE, 0, contents.length);
        return memory;
    }

    private static void append(StringBuilder text, String difference) {
        if (difference != null) {
            text.append(String.format("%n")).append(difference);
        }
    }

    private static void checkCompletions(String queue, List<Expected> expected, List<WorkCompletion> actual,
                                         int qpNum, int srcQp, boolean grh) {
        for (int i = 0; i < expected.size(); i++) {
            Expected e = expected.get(i);
            WorkCompletion wc = actual.get(i);
            String where = queue + ", completion " + i + " (op #" + e.op() + "): " + wc;
            require(wc.status() == WcStatus.SUCCESS, where, "status SUCCESS");
            require(wc.wrId() == e.wrId(), where, "wr_id " + Long.toUnsignedString(e.wrId()));
            require(wc.opcode() == e.opcode(), where, "opcode " + e.opcode());
            require(wc.qpNum() == qpNum, where, "qp_num " + qpNum);
            if (e.byteLen() >= 0) {
                require(wc.byteLen() == e.byteLen(), where, "byte_len " + e.byteLen());
            }
            if (e.opcode().isReceive()) {
                require(wc.has(WcFlag.WITH_IMM) == e.withImm(), where, (e.withImm() ? "" : "no ") + "WITH_IMM flag");
                if (e.withImm()) {
                    require(wc.immData() == e.imm(), where, "imm_data 0x" + Integer.toHexString(e.imm()));
                }
                // IBTA 11.4.1.2: UD receives carry the GRH. On RC/UC the flag is left unchecked: RoCE packets
                // all have a network header, and some RNICs report it there too.
                if (grh) {
                    require(wc.has(WcFlag.GRH), where, "GRH flag");
                }
                if (srcQp >= 0) {
                    require(wc.srcQp() == srcQp, where, "src_qp " + srcQp);
                }
            }
        }
    }

    private static void checkNoMore(String side, List<WorkCompletion> extra) {
        if (!extra.isEmpty()) {
            throw new AssertionError("completions nobody asked for on " + side + "'s CQ: " + extra);
        }
    }

    /**
     * The 40 bytes the model leaves unspecified: on RoCEv2 they hold the sender's network header as
     * ibv_init_ah_from_wc reads it — for IPv4-mapped GIDs 20 bytes of padding then the IPv4 header
     * (version 4 at byte 20, source address at 32, destination at 36), else the IPv6 header (version 6,
     * source GID at 8, destination GID at 24).
     */
    private static void checkGrh(Placed p, byte[] buffer, Gid source, Gid destination) {
        String where = "GRH of the receive buffer of op #" + p.index();
        if (source.isIpv4Mapped()) {
            require((buffer[20] & 0xF0) == 0x40, where, "IPv4 version nibble at byte 20, got 0x"
                    + Integer.toHexString(buffer[20] & 0xFF));
            require(java.util.Arrays.equals(buffer, 32, 36, source.raw(), 12, 16), where, "source " + source);
            require(java.util.Arrays.equals(buffer, 36, 40, destination.raw(), 12, 16), where, "destination " + destination);
        } else {
            require((buffer[0] & 0xF0) == 0x60, where, "IPv6 version nibble at byte 0");
            require(java.util.Arrays.equals(buffer, 8, 24, source.raw(), 0, 16), where, "source " + source);
            require(java.util.Arrays.equals(buffer, 24, 40, destination.raw(), 0, 16), where, "destination " + destination);
        }
    }

    private static void require(boolean condition, String where, String expected) {
        if (!condition) {
            throw new AssertionError(where + ": expected " + expected);
        }
    }
}
