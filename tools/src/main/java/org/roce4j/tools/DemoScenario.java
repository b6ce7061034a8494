package org.roce4j.tools;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.NumberText;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * What {@code roce4j demo} does, written against the Verbs API alone (so it reads as an example of
 * it): connects an RC queue pair between two devices as {@code ibv_rc_pingpong} does, then runs one
 * of each operation, multi-packet messages included, and checks every completion and every byte on
 * both sides.
 */
final class DemoScenario {
    static final int PORT = 1;
    /** GID index 1: the IPv4-mapped GID, RoCEv2 over IPv4. */
    static final int GID_INDEX = 1;
    static final int PSN_A = 0x1000;
    static final int PSN_B = 0x2000;
    private static final Set<AccessFlag> ALL_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE,
            AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);
    private static final long MEMORY = 64 * 1024;
    private static final long IOVA_A = 0x1000_0000L;
    private static final long IOVA_B = 0x2000_0000L;
    /** Polls before a missing completion counts as lost (each poll drives the emulated fabric). */
    private static final int PATIENCE_POLLS = 1_000_000;

    // Where things live in A's and B's memory.
    private static final long A_SOURCE = 0;
    private static final long A_READ_INTO = 16 * 1024;
    private static final long A_ATOMIC_RESULTS = 32 * 1024;
    private static final long B_RECEIVE = 0;
    private static final long B_WRITE_TARGET = 16 * 1024;
    private static final long B_READ_SOURCE = 32 * 1024;
    private static final long B_COUNTER = 48 * 1024;

    private final PrintWriter out;
    private final Mtu mtu;
    private int steps;
    /** Steps with at least one wrong completion or byte. */
    private int failedSteps;
    private int lastFailedStep;
    /** What the run was waiting for when it gave up, or null. */
    private String stuckAt;

    DemoScenario(PrintWriter out, Mtu mtu) {
        this.out = out;
        this.mtu = mtu;
    }

    /** Runs the scenario; true when every completion and every byte was as expected. */
    boolean run(Device deviceA, Device deviceB) {
        try (Arena arena = Arena.ofConfined();
             Context contextA = deviceA.open();
             Context contextB = deviceB.open();
             Pd pdA = contextA.allocPd();
             Pd pdB = contextB.allocPd();
             Cq cqA = contextA.createCq(64);
             Cq cqB = contextB.createCq(64)) {
            // Page-aligned: the fixed IOVAs keep the addresses' page offset (0), as ib_uverbs_reg_mr requires.
            MemorySegment memoryA = arena.allocate(MEMORY, 4096);
            MemorySegment memoryB = arena.allocate(MEMORY, 4096);
            // Fixed IO virtual addresses (ibv_reg_mr_iova) rather than wherever the arena put the
            // memory: the RETH and AtomicETH addresses, and so the capture, are the same every run.
            try (Mr mrA = pdA.regMr(memoryA, IOVA_A, ALL_ACCESS);
                 Mr mrB = pdB.regMr(memoryB, IOVA_B, ALL_ACCESS);
                 Qp qpA = pdA.createQp(QpInitAttr.of(QpType.RC, cqA, QpCap.of(16, 16)));
                 Qp qpB = pdB.createQp(QpInitAttr.of(QpType.RC, cqB, QpCap.of(16, 16)))) {
                connect(qpA, qpB, contextA.queryGid(PORT, GID_INDEX), contextB.queryGid(PORT, GID_INDEX));
                out.printf("RC QP %s on %s <-> QP %s on %s, path MTU %d%n%n", NumberText.qpn(qpA.qpNum()), deviceA.name(),
                        NumberText.qpn(qpB.qpNum()), deviceB.name(), mtu.bytes());
                Side a = new Side("A", qpA, cqA, mrA, memoryA);
                Side b = new Side("B", qpB, cqB, mrB, memoryB);
                send(a, b);
                sendWithImmediate(a, b);
                rdmaWrite(a, b);
                rdmaWriteWithImmediate(a, b);
                rdmaRead(a, b);
                fetchAndAdd(a, b);
                compareAndSwap(a, b);
            } catch (Stuck e) {
                // Nothing more can happen: later steps would queue behind the missing completion.
                stuckAt = e.getMessage();
            }
        }
        out.printf("%n%d of %d steps correct%n", steps - failedSteps, steps);
        return failedSteps == 0;
    }

    /** {@return true if a completion never came and the scenario stopped there} */
    boolean stuck() {
        return stuckAt != null;
    }

    /** {@return what the scenario was waiting for when it stopped, or null if it did not} */
    String stuckAt() {
        return stuckAt;
    }

    /** A completion that polling patiently did not bring: the rest of the scenario is skipped. */
    private static final class Stuck extends RuntimeException {
        Stuck(String message) {
            super(message, null, false, false);
        }
    }

    private record Side(String name, Qp qp, Cq cq, Mr mr, MemorySegment memory) {
    }

    private void send(Side a, Side b) {
        int length = 64;
        fill(a.memory, A_SOURCE, length, 1);
        b.qp.postRecv(RecvWr.of(101, b.mr, B_RECEIVE, 4096));
        a.qp.postSend(SendWr.send(1, a.mr, A_SOURCE, length));
        step("SEND", length);
        expect(a, 1, WcOpcode.SEND, -1);
        WorkCompletion received = expect(b, 101, WcOpcode.RECV, length);
        checkData(b.memory, B_RECEIVE, a.memory, A_SOURCE, length, "B's receive buffer");
        noImmediate(received);
    }

    private void sendWithImmediate(Side a, Side b) {
        int length = 3000;
        int immediate = 0x12345678;
        fill(a.memory, A_SOURCE, length, 2);
        b.qp.postRecv(RecvWr.of(102, b.mr, B_RECEIVE + 4096, 4096));
        a.qp.postSend(SendWr.sendWithImm(2, a.mr, A_SOURCE, length, immediate));
        step("SEND with immediate", length);
        expect(a, 2, WcOpcode.SEND, -1);
        WorkCompletion received = expect(b, 102, WcOpcode.RECV, length);
        checkImmediate(received, immediate);
        checkData(b.memory, B_RECEIVE + 4096, a.memory, A_SOURCE, length, "B's receive buffer");
    }

    private void rdmaWrite(Side a, Side b) {
        int length = 5000;
        fill(a.memory, A_SOURCE, length, 3);
        a.qp.postSend(SendWr.rdmaWrite(3, a.mr, A_SOURCE, length, b.mr.address() + B_WRITE_TARGET, b.mr.rkey()));
        step("RDMA WRITE", length);
        expect(a, 3, WcOpcode.RDMA_WRITE, -1);
        checkData(b.memory, B_WRITE_TARGET, a.memory, A_SOURCE, length, "B's memory");
    }

    private void rdmaWriteWithImmediate(Side a, Side b) {
        int length = 200;
        int immediate = 0xCAFE;
        fill(a.memory, A_SOURCE, length, 4);
        // IBTA 9.4.3: a WRITE with immediate consumes a receive WQE at the responder.
        b.qp.postRecv(RecvWr.of(104, b.mr, B_RECEIVE + 8192, 64));
        a.qp.postSend(SendWr.rdmaWrite(4, a.mr, A_SOURCE, length, b.mr.address() + B_WRITE_TARGET + 8192,
                b.mr.rkey()).opcode(org.roce4j.verbs.WrOpcode.RDMA_WRITE_WITH_IMM).immData(immediate));
        step("RDMA WRITE with immediate", length);
        expect(a, 4, WcOpcode.RDMA_WRITE, -1);
        WorkCompletion received = expect(b, 104, WcOpcode.RECV_RDMA_WITH_IMM, length);
        checkImmediate(received, immediate);
        checkData(b.memory, B_WRITE_TARGET + 8192, a.memory, A_SOURCE, length, "B's memory");
    }

    private void rdmaRead(Side a, Side b) {
        int length = 4096;
        fill(b.memory, B_READ_SOURCE, length, 5);
        a.qp.postSend(SendWr.rdmaRead(5, a.mr, A_READ_INTO, length, b.mr.address() + B_READ_SOURCE, b.mr.rkey()));
        step("RDMA READ", length);
        expect(a, 5, WcOpcode.RDMA_READ, length);
        checkData(a.memory, A_READ_INTO, b.memory, B_READ_SOURCE, length, "A's memory");
    }

    private void fetchAndAdd(Side a, Side b) {
        b.memory.set(ValueLayout.JAVA_LONG, B_COUNTER, 40);
        a.qp.postSend(SendWr.fetchAndAdd(6, a.mr, A_ATOMIC_RESULTS, b.mr.address() + B_COUNTER, b.mr.rkey(), 2));
        step("FETCH_AND_ADD 40 + 2", 8);
        expect(a, 6, WcOpcode.FETCH_ADD, 8);
        checkLong(a.memory, A_ATOMIC_RESULTS, 40, "original value returned to A");
        checkLong(b.memory, B_COUNTER, 42, "B's counter");
    }

    private void compareAndSwap(Side a, Side b) {
        a.qp.postSend(SendWr.compareAndSwap(7, a.mr, A_ATOMIC_RESULTS + 8, b.mr.address() + B_COUNTER,
                b.mr.rkey(), 42, 0xC0FFEE));
        step("CMP_AND_SWP 42 -> 0xC0FFEE", 8);
        expect(a, 7, WcOpcode.COMP_SWAP, 8);
        checkLong(a.memory, A_ATOMIC_RESULTS + 8, 42, "original value returned to A");
        checkLong(b.memory, B_COUNTER, 0xC0FFEE, "B's counter");
    }

    /** ibv_rc_pingpong's pp_connect_ctx on both sides: both INIT, then each to RTR and RTS in turn. */
    private void connect(Qp qpA, Qp qpB, Gid gidA, Gid gidB) {
        QpBringUp bringUp = QpBringUp.pingpong().withPortNum(PORT).withSgidIndex(GID_INDEX).withPathMtu(mtu);
        bringUp.init(qpA);
        bringUp.init(qpB);
        bringUp.readyToReceive(qpA, new QpBringUp.Remote(qpB.qpNum(), PSN_B, gidB));
        bringUp.readyToSend(qpA, PSN_A);
        bringUp.readyToReceive(qpB, new QpBringUp.Remote(qpA.qpNum(), PSN_A, gidA));
        bringUp.readyToSend(qpB, PSN_B);
    }

    private void step(String what, int length) {
        steps++;
        int packets = Math.max(1, (length + mtu.bytes() - 1) / mtu.bytes());
        out.printf("[%d] %s, %d bytes (%d packet%s)%n", steps, what, length, packets, packets == 1 ? "" : "s");
    }

    /** Polls the side's CQ for one completion and checks it; byteLen -1 means "not checked" (sends). */
    private WorkCompletion expect(Side side, long wrId, WcOpcode opcode, int byteLen) {
        WorkCompletion[] one = new WorkCompletion[1];
        for (int polls = 0; polls < PATIENCE_POLLS; polls++) {
            if (side.cq.poll(one) == 1) {
                WorkCompletion wc = one[0];
                out.printf("    %s  %s%n", side.name, wc);
                check(wc.wrId() == wrId && wc.status() == WcStatus.SUCCESS && wc.opcode() == opcode
                                && (byteLen < 0 || wc.byteLen() == byteLen),
                        "expected wr_id=" + wrId + " SUCCESS " + opcode + (byteLen < 0 ? "" : " byte_len=" + byteLen));
                return wc;
            }
        }
        String missing = side.name + ": no completion for wr_id " + wrId + " after " + PATIENCE_POLLS + " polls";
        check(false, missing);
        throw new Stuck("step " + steps + ", " + missing);
    }

    private void checkImmediate(WorkCompletion wc, int immediate) {
        if (wc != null) {
            check(wc.has(org.roce4j.verbs.WcFlag.WITH_IMM) && wc.immData() == immediate,
                    "expected imm_data=0x" + Integer.toHexString(immediate));
        }
    }

    private void noImmediate(WorkCompletion wc) {
        if (wc != null) {
            check(!wc.has(org.roce4j.verbs.WcFlag.WITH_IMM), "a plain SEND carries no immediate");
        }
    }

    private void checkData(MemorySegment actual, long at, MemorySegment expected, long from, int length, String where) {
        long mismatch = actual.asSlice(at, length).mismatch(expected.asSlice(from, length));
        check(mismatch < 0, where + " differs at byte " + mismatch);
        if (mismatch < 0) {
            out.printf("    data: %s matches the source, %d bytes%n", where, length);
        }
    }

    private void checkLong(MemorySegment memory, long at, long expected, String what) {
        long actual = memory.get(ValueLayout.JAVA_LONG, at);
        check(actual == expected, what + " is " + actual + ", expected " + expected);
        if (actual == expected) {
            out.printf("    data: %s = %d (0x%x)%n", what, actual, actual);
        }
    }

    private void check(boolean ok, String failure) {
        if (!ok) {
            if (lastFailedStep != steps) {
                failedSteps++;
                lastFailedStep = steps;
            }
            out.printf("    WRONG: %s%n", failure);
        }
    }

    /** A recognisable pattern: byte i of step s is (s * 16 + i) mod 256. */
    private static void fill(MemorySegment memory, long at, int length, int seed) {
        for (int i = 0; i < length; i++) {
            memory.set(ValueLayout.JAVA_BYTE, at + i, (byte) (seed * 16 + i));
        }
    }
}
