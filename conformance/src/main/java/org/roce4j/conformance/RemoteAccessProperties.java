package org.roce4j.conformance;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * Random remote accesses outside a region's rights or bounds never change a byte of the target
 * memory (IBTA 10.6.3 memory protection, C9-88 R_Key/VA/length checks, 10.2.3 PD checks).
 *
 * <p>Each example builds fresh endpoints and a fresh QP pair (an RC access error moves the QP to
 * ERR), registers the target region over the middle of a larger allocation (guard bytes on both
 * sides), fills every allocation on the responder with random bytes, snapshots them, posts ONE bad
 * RDMA WRITE / WRITE_WITH_IMM / READ / atomic, and compares every responder allocation with its
 * snapshot afterwards.
 *
 * <ul>
 *   <li>RC: the requester completes the bad WR with REM_ACCESS_ERR (IBTA 9.7.5.2.4 NAK "remote access
 *       error"); a misaligned atomic with REM_INV_REQ_ERR (IBTA 9.4.5: an atomic's VA must be 8-byte
 *       aligned; NAK "invalid request"). When the responder QP's access flags lack the right, Linux
 *       rxe answers NAK "invalid request" ({@code check_op_valid} → {@code RESPST_ERR_UNSUPPORTED_OPCODE}
 *       → REM_INV_REQ_ERR) while other RNICs report a remote access error, so either is accepted there.
 *       A provider may instead refuse a misaligned atomic at post with EINVAL (rxe's does): that is
 *       accepted too, provided nothing completes for it and no byte changes.
 *   <li>UC: the requester cannot learn of it (no responses, IBTA 9.8): the WRITE completes SUCCESS and
 *       the responder silently drops the message (IBTA 9.9.3); a SEND posted behind it still arrives,
 *       which proves the responder has processed the bad WRITE before memory is compared.
 * </ul>
 *
 * <p>Replay: QuickTheories prints "Seed was N"; rerun with {@code -DQT_SEED=N}. Examples:
 * {@code -Droce4j.properties.examples} (default 100); shrink cycles: {@code -Droce4j.properties.shrinks} (default 1000).
 */
@ExtendWith(Backend.Resolver.class)
class RemoteAccessProperties {
    static final int EXAMPLES = Integer.getInteger("roce4j.properties.examples", 100);
    static final int SHRINK_CYCLES = Integer.getInteger("roce4j.properties.shrinks", 1000);
    /** Bytes allocated on each side of a target region, part of the snapshot. */
    static final int GUARD = 64;
    static final int RECEIVE_BYTES = 64;
    static final int MARKER_BYTES = 4;
    static final QpCap CAP = new QpCap(16, 16, 1, 1, 0);
    static final Set<AccessFlag> REMOTE_RIGHTS =
            EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    private final Backend backend;

    RemoteAccessProperties(Backend backend) {
        this.backend = backend;
    }

    /** What is wrong with the access. */
    enum Violation {
        /** The region was registered without the right the operation needs. */
        MR_LACKS_RIGHT,
        /** The responder QP's access flags lack the right (IBTA 10.2.1.1 / ibv_modify_qp qp_access_flags). */
        QP_LACKS_RIGHT,
        /** Starts before the region (entirely or overlapping its first byte). */
        BELOW_START,
        /** Starts at or after the region's end. */
        PAST_END,
        /** Starts inside, ends past the end. */
        STRADDLES_END,
        /** VA + length overflows 2^64 and wraps to a small address. */
        ADDRESS_WRAPS,
        /** An R_Key no region of the responder's PD has. */
        WRONG_RKEY,
        /** The R_Key and VA of a region registered in another PD of the responder (IBTA 10.2.3). */
        OTHER_PD,
        /** An atomic at an address that is not a multiple of 8, inside the region. */
        MISALIGNED_ATOMIC;

        /** Violations of rights or keys: the access itself lies inside the region. */
        boolean inBounds() {
            return this == MR_LACKS_RIGHT || this == QP_LACKS_RIGHT || this == WRONG_RKEY || this == OTHER_PD
                    || this == MISALIGNED_ATOMIC;
        }
    }

    /**
     * One bad access as generated. {@code pick} chooses the distance or offset within what the violation
     * allows; {@code rights} chooses which of the other rights the region or QP still has.
     */
    record Attempt(QpType type, Mtu mtu, WrOpcode opcode, Violation violation, int regionSize, int length,
                   int pick, int rights, int rkeyFlip, long operand, long memorySeed) {

        static Attempt of(QpType type, Mtu mtu, WrOpcode opcode, Violation violation, int regionSize, int length,
                          int pick, int rights, int rkeyFlip, long operand, long memorySeed) {
            boolean atomic = opcode.isAtomic();
            int n = regionSize;
            int len = atomic ? 8 : length;
            if (atomic && violation == Violation.STRADDLES_END) {
                n |= 1;    // an aligned 8-byte access straddles only an end that is not a multiple of 8
            }
            if (!atomic && (violation == Violation.STRADDLES_END || violation == Violation.ADDRESS_WRAPS)) {
                len = Math.max(len, 2);
            }
            if (violation.inBounds()) {
                len = Math.min(len, n);
            }
            return new Attempt(type, mtu, opcode, violation, n, len, pick, rights, rkeyFlip, operand, memorySeed);
        }

        AccessFlag needed() {
            return switch (opcode) {
                case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> AccessFlag.REMOTE_WRITE;
                case RDMA_READ -> AccessFlag.REMOTE_READ;
                case ATOMIC_FETCH_AND_ADD, ATOMIC_CMP_AND_SWP -> AccessFlag.REMOTE_ATOMIC;
                default -> throw new IllegalStateException(opcode + " names no remote memory");
            };
        }

        /** The other remote rights, kept or dropped by the two low bits of {@code rights}. */
        Set<AccessFlag> otherRights() {
            EnumSet<AccessFlag> others = EnumSet.copyOf(REMOTE_RIGHTS);
            others.remove(needed());
            EnumSet<AccessFlag> kept = EnumSet.noneOf(AccessFlag.class);
            int bit = 0;
            for (AccessFlag flag : others) {
                if ((rights >>> bit++ & 1) != 0) {
                    kept.add(flag);
                }
            }
            return kept;
        }

        Set<AccessFlag> regionAccess() {
            if (violation != Violation.MR_LACKS_RIGHT) {
                return Endpoint.ALL_ACCESS;
            }
            // LOCAL_WRITE always: IBTA o10-26 wants it with REMOTE_WRITE or REMOTE_ATOMIC.
            EnumSet<AccessFlag> access = EnumSet.of(AccessFlag.LOCAL_WRITE);
            access.addAll(otherRights());
            return access;
        }

        Set<AccessFlag> qpAccess() {
            return violation == Violation.QP_LACKS_RIGHT ? otherRights() : REMOTE_RIGHTS;
        }

        /** The VA the request names, given the region's first byte {@code start}. */
        long address(long start) {
            boolean atomic = opcode.isAtomic();
            int n = regionSize;
            int p = pick;
            return switch (violation) {
                case BELOW_START -> atomic ? start - 8L * (1 + p % 4) : start - (1 + p % (length + 16));
                case PAST_END -> atomic ? (start + n + 7) / 8 * 8 + 8L * (p % 4) : start + n + p % 65;
                case STRADDLES_END -> atomic ? start + n / 8 * 8 : start + n - (1 + p % Math.min(n, length - 1));
                case ADDRESS_WRAPS -> atomic ? -8L : -(1L + p % (length - 1));
                case MISALIGNED_ATOMIC -> start + 8L * ((p / 8) % (n / 8 - 1)) + 1 + p % 7;
                case MR_LACKS_RIGHT, QP_LACKS_RIGHT, WRONG_RKEY, OTHER_PD ->
                        atomic ? start + 8L * (p % (n / 8)) : start + p % (n - length + 1);
            };
        }

        Set<WcStatus> expectedStatuses() {
            return switch (violation) {
                case MISALIGNED_ATOMIC -> EnumSet.of(WcStatus.REM_INV_REQ_ERR);
                case QP_LACKS_RIGHT -> EnumSet.of(WcStatus.REM_INV_REQ_ERR, WcStatus.REM_ACCESS_ERR);
                default -> EnumSet.of(WcStatus.REM_ACCESS_ERR);
            };
        }

        @Override
        public String toString() {
            long relative = address(0);
            String where = violation == Violation.ADDRESS_WRAPS ? "VA 0x" + Long.toHexString(relative)
                    : "VA start" + (relative >= 0 ? "+" : "") + relative;
            return type + " path MTU " + mtu.bytes() + ": " + opcode + " of " + length + " bytes at " + where
                    + " into a region of " + regionSize + " bytes — " + violation
                    + (violation == Violation.MR_LACKS_RIGHT ? " (region access " + regionAccess() + ")" : "")
                    + (violation == Violation.QP_LACKS_RIGHT ? " (QP access " + qpAccess() + ")" : "")
                    + (violation == Violation.WRONG_RKEY ? " (rkey ^ 0x" + Integer.toHexString(rkeyFlip) + ")" : "")
                    + ", memory seed " + memorySeed;
        }
    }

    @Test
    @DisplayName("RC: WRITE/READ/atomics outside a region's rights or bounds, or with a wrong R_Key, fail with REM_ACCESS_ERR (misaligned atomics REM_INV_REQ_ERR, or EINVAL at post) and change no byte (IBTA C9-88, 10.6.3)")
    void rcBadRemoteAccessFailsAndChangesNothing() {
        qt().withExamples(EXAMPLES).withShrinkCycles(SHRINK_CYCLES)
                .forAll(attempts(QpType.RC))
                .checkAssert(this::runUnchecked);
    }

    @Test
    @DisplayName("UC: RDMA WRITEs outside a region's rights or bounds, or with a wrong R_Key, are dropped and change no byte (IBTA 9.9.3, C9-88)")
    void ucBadRemoteWriteChangesNothing() {
        qt().withExamples(EXAMPLES).withShrinkCycles(SHRINK_CYCLES)
                .forAll(attempts(QpType.UC))
                .checkAssert(this::runUnchecked);
    }

    static Gen<Attempt> attempts(QpType type) {
        List<WrOpcode> opcodes = type == QpType.RC
                ? List.of(WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ,
                        WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.ATOMIC_CMP_AND_SWP)
                : List.of(WrOpcode.RDMA_WRITE);
        return Generate.pick(opcodes).flatMap(opcode -> Generate.pick(violations(opcode)).flatMap(violation ->
                Generate.enumValues(Mtu.class).flatMap(mtu ->
                        integers().between(16, 4096).zip(integers().between(1, 3 * mtu.bytes() + 64),
                                        integers().between(0, Integer.MAX_VALUE), integers().between(0, 3),
                                        (n, len, pick, rights) -> new int[] {n, len, pick, rights})
                                .zip(integers().between(1, Integer.MAX_VALUE), longs().all(), longs().all(),
                                        (v, flip, operand, seed) -> Attempt.of(type, mtu, opcode, violation,
                                                v[0], v[1], v[2], v[3], flip, operand, seed)))));
    }

    private static List<Violation> violations(WrOpcode opcode) {
        List<Violation> all = new ArrayList<>(List.of(Violation.values()));
        if (!opcode.isAtomic()) {
            all.remove(Violation.MISALIGNED_ATOMIC);
        }
        return List.copyOf(all);
    }

    private void runUnchecked(Attempt attempt) {
        try {
            run(attempt);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    void run(Attempt t) throws Exception {
        SplittableRandom random = new SplittableRandom(t.memorySeed());
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            Mr local = a.track(a.pd.regMr(filled(a, Math.max(t.length(), 8), random), Endpoint.ALL_ACCESS));

            // Every allocation of the responder is snapshotted: the target with its guards, the other
            // PD's region with its guards, the receive buffer.
            List<MemorySegment> watched = new ArrayList<>();
            MemorySegment targetMemory = filled(b, GUARD + t.regionSize() + GUARD, random);
            watched.add(targetMemory);
            Mr target = b.track(b.pd.regMr(targetMemory.asSlice(GUARD, t.regionSize()), t.regionAccess()));
            MemorySegment receiveMemory = filled(b, RECEIVE_BYTES, random);
            watched.add(receiveMemory);
            Mr receive = b.track(b.pd.regMr(receiveMemory, Endpoint.ALL_ACCESS));
            Mr addressed = target;
            MemorySegment addressedMemory = targetMemory;
            if (t.violation() == Violation.OTHER_PD) {
                Pd otherPd = b.track(b.context.allocPd());
                MemorySegment otherMemory = filled(b, GUARD + t.regionSize() + GUARD, random);
                watched.add(otherMemory);
                addressedMemory = otherMemory;
                addressed = b.track(otherPd.regMr(otherMemory.asSlice(GUARD, t.regionSize()), Endpoint.ALL_ACCESS));
            }
            int rkey = addressed.rkey();
            if (t.violation() == Violation.WRONG_RKEY) {
                rkey ^= t.rkeyFlip();
                while (rkey == target.rkey() || rkey == receive.rkey()) {
                    rkey += 0x100;
                }
            }
            long address = t.address(addressed.address());

            QpPair pair = QpPair.connect(a, b, t.type(), t.mtu(), CAP, t.qpAccess());
            boolean uc = t.type() == QpType.UC;
            if (t.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM || uc) {
                // WRITE_WITH_IMM needs a receive WQE (else RNR, not an access check); UC's closing SEND too.
                pair.qpB.postRecv(RecvWr.of(7, receive, 0, RECEIVE_BYTES));
            }
            // What each allocation must hold afterwards: what it holds now, except that UC's closing SEND
            // lands in the receive buffer.
            List<byte[]> expected = watched.stream().map(m -> m.toArray(ValueLayout.JAVA_BYTE)).toList();
            if (uc) {
                MemorySegment.copy(local.segment(), ValueLayout.JAVA_BYTE, 0, expected.get(1), 0, MARKER_BYTES);
            }

            SendWr bad = new SendWr().wrId(0xBAD).opcode(t.opcode()).signaled(true)
                    .sge(local, 0, t.length()).remote(address, rkey);
            switch (t.opcode()) {
                case ATOMIC_FETCH_AND_ADD -> bad.compareAdd(t.operand());
                // Compare with what is there, so that a missed check would visibly swap.
                case ATOMIC_CMP_AND_SWP -> bad.compareAdd(currentValue(addressedMemory, addressed, address, t))
                        .swap(t.operand());
                case RDMA_WRITE_WITH_IMM -> bad.immData(0x1BAD);
                default -> { }
            }
            boolean refusedAtPost = !post(pair, bad, t);
            if (refusedAtPost) {
                // A misaligned atomic refused at post (rxe): nothing was sent, nothing may complete, and the
                // bytes are still checked below.
                List<WorkCompletion> late = Completions.drain(a.cq);
                if (!late.isEmpty()) {
                    throw new AssertionError("a WR refused at post completed: " + late);
                }
            } else if (uc) {
                pair.qpA.postSend(SendWr.send(0x600D, local, 0, MARKER_BYTES));
                List<WorkCompletion> sent = Completions.await(a.cq, 2);
                expect(sent.get(0), 0xBAD, EnumSet.of(WcStatus.SUCCESS), "the UC WRITE (a UC requester learns nothing)");
                expect(sent.get(1), 0x600D, EnumSet.of(WcStatus.SUCCESS), "the SEND after it");
                WorkCompletion marker = Completions.awaitOne(b.cq);
                expect(marker, 7, EnumSet.of(WcStatus.SUCCESS), "the SEND behind the dropped WRITE at B");
                if (marker.opcode() != WcOpcode.RECV || marker.byteLen() != MARKER_BYTES) {
                    throw new AssertionError("the receive at B should be the " + MARKER_BYTES
                            + "-byte SEND behind the dropped WRITE, got " + marker);
                }
            } else {
                expect(Completions.awaitOne(a.cq), 0xBAD, t.expectedStatuses(), "the bad " + t.opcode());
            }

            for (int i = 0; i < watched.size(); i++) {
                byte[] after = watched.get(i).toArray(ValueLayout.JAVA_BYTE);
                String changed = changes(expected.get(i), after, i == 0 || t.violation() == Violation.OTHER_PD && i == 2);
                if (changed != null) {
                    throw new AssertionError("responder memory changed by a rejected access: "
                            + (i == 0 ? "target allocation" : i == 1 ? "receive buffer" : "other PD's allocation")
                            + changed);
                }
            }
        }
    }

    /**
     * Posts the bad request and {@return true}, or {@return false} when the device refused it at post in the
     * way this violation allows. An atomic whose remote address is not a multiple of 8 is one an IBTA
     * responder NAKs (9.4.5: REM_INV_REQ_ERR at the requester, as the emulator does), but libibverbs'
     * providers may refuse it at post: rdma-core's rxe provider does ({@code validate_send_wr}:
     * {@code remote_addr & 7} is EINVAL). Both are legal outcomes of the rule; for every other violation
     * the post must succeed and the responder must refuse the access.
     */
    private static boolean post(QpPair pair, SendWr bad, Attempt t) {
        if (t.violation() != Violation.MISALIGNED_ATOMIC) {
            pair.qpA.postSend(bad);
            return true;
        }
        try {
            pair.qpA.postSend(bad);
            return true;
        } catch (VerbsException e) {
            if (e.errno() != Errno.EINVAL) {
                throw new AssertionError("the misaligned " + t.opcode() + " was refused at post with " + e.errno()
                        + ", not EINVAL: " + e.getMessage(), e);
            }
            return false;
        }
    }

    /** The 8 bytes at the atomic's address when they lie in the region's allocation, else anything but the swap value. */
    private static long currentValue(MemorySegment allocation, Mr addressed, long address, Attempt t) {
        long offset = GUARD + (address - addressed.address());
        if (offset >= 0 && offset + 8 <= allocation.byteSize()) {
            return allocation.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
        }
        return t.operand() ^ 1;
    }

    private static void expect(WorkCompletion wc, long wrId, Set<WcStatus> statuses, String what) {
        if (wc.wrId() != wrId || !statuses.contains(wc.status())) {
            throw new AssertionError("completion of " + what + ": expected wr_id " + wrId + " with "
                    + (statuses.size() == 1 ? statuses.iterator().next() : "one of " + statuses) + ", got " + wc);
        }
    }

    private static String changes(byte[] expected, byte[] after, boolean guarded) {
        StringBuilder text = new StringBuilder();
        int count = 0;
        for (int i = 0; i < expected.length; i++) {
            if (expected[i] != after[i]) {
                if (count < 8) {
                    String where = !guarded ? "offset " + i
                            : i < GUARD ? "guard byte start-" + (GUARD - i)
                            : i >= expected.length - GUARD ? "guard byte end+" + (i - (expected.length - GUARD))
                            : "region offset " + (i - GUARD);
                    text.append(String.format("%n  %s: expected 0x%02x, got 0x%02x", where, expected[i] & 0xFF, after[i] & 0xFF));
                }
                count++;
            }
        }
        return count == 0 ? null : " (" + count + " bytes)" + text;
    }

    private static MemorySegment filled(Endpoint endpoint, int size, SplittableRandom random) {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        MemorySegment memory = endpoint.allocate(size);
        MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, 0, size);
        return memory;
    }
}
