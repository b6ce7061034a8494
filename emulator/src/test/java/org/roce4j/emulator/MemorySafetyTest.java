package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * Issue 13: no verbs call can crash or corrupt the JVM, and every WR whose memory fails under the
 * RNIC still ends in exactly one completion: INLINE data only from registered memory, regMr only of
 * memory the RNIC can reach, and every failure of the RNIC's own memory accesses a completion
 * status, a QP in ERR, a flush, an event where libibverbs raises one, and a counter.
 */
class MemorySafetyTest {
    private final TwoNodes nodes = new TwoNodes();
    private final TwoNodes.Side a = nodes.a;
    private final TwoNodes.Side b = nodes.b;
    private final List<Throwable> escaped = new ArrayList<>();

    MemorySafetyTest() {
        nodes.fabric.onCallbackFailure((where, failure) -> escaped.add(failure));
    }

    @AfterEach
    void close() {
        nodes.close();
        assertThat(escaped).as("exceptions thrown out of the RNIC's loop").isEmpty();
    }

    private static void assertEinval(long wrId, Runnable post) {
        assertThatThrownBy(post::run).isInstanceOfSatisfying(BadWorkRequestException.class, e -> {
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e.index()).isZero();
            assertThat(e.wrId()).isEqualTo(wrId);
        });
    }

    /** A region of its own arena on side {@code side}, so that the arena can be closed under it. */
    private static Mr regionInOwnArena(TwoNodes.Side side, Arena arena, long size) {
        return side.pd.regMr(arena.allocate(size, 4096), TwoNodes.ALL_ACCESS);
    }

    // ---- INLINE ------------------------------------------------------------------------------

    @Test
    @DisplayName("INLINE from address 0x10 is EINVAL at post, naming the WR (it crashed the JVM with SIGSEGV)")
    void inlineFromAddress0x10IsEinval() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[1].postRecv(RecvWr.of(9, b.mr, 0, 64));
        assertEinval(1, () -> pair[0].postSend(new SendWr().wrId(1).sge(0x10, 16, a.mr.lkey()).inline(true)));
        assertThat(pair[0].state()).isEqualTo(QpState.RTS);
        assertThat(a.pollAll()).isEmpty();
        assertThat(b.pollAll()).isEmpty();
    }

    @Test
    @DisplayName("INLINE from live native memory that is not registered is EINVAL (it was sent, SUCCESS)")
    void inlineFromUnregisteredMemoryIsEinval() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[1].postRecv(RecvWr.of(9, b.mr, 0, 64));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment secret = arena.allocate(64);
            secret.fill((byte) 0x5A);
            assertEinval(2, () -> pair[0].postSend(new SendWr().wrId(2).sge(secret.address(), 16, a.mr.lkey())
                    .inline(true)));
            // Straddling the end of a registered region is outside it too.
            assertEinval(3, () -> pair[0].postSend(new SendWr().wrId(3)
                    .sge(a.memory.address() + a.memory.byteSize() - 8, 16, 0).inline(true)));
        }
        assertThat(b.pollAll()).isEmpty();
        assertThat(b.memory.get(ValueLayout.JAVA_BYTE, 0)).isNotEqualTo((byte) 0x5A);
    }

    @Test
    @DisplayName("INLINE from memory registered on another context, or deregistered, is EINVAL")
    void inlineFromAnotherContextOrDeregisteredIsEinval() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        var other = nodes.rnicA.device().open(); // a second context of the same device
        try (Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(64);
            Mr elsewhere = other.allocPd().regMr(memory, TwoNodes.ALL_ACCESS);
            assertEinval(4, () -> pair[0].postSend(SendWr.send(4, elsewhere, 0, 16).inline(true)));
            elsewhere.close();
            Mr gone = a.pd.regMr(memory, TwoNodes.ALL_ACCESS);
            gone.close();
            assertEinval(5, () -> pair[0].postSend(SendWr.send(5, gone, 0, 16).inline(true)));
        }
        assertThat(pair[0].state()).isEqualTo(QpState.RTS);
    }

    @Test
    @DisplayName("INLINE from a registered region is read at post through the region, lkey ignored (libibverbs)")
    void inlineFromRegisteredMemoryIsCopiedAtPost() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[1].postRecv(RecvWr.of(9, b.mr, 0, 64));
        a.memory.set(ValueLayout.JAVA_LONG, 0, 0x0102030405060708L);
        pair[0].postSend(new SendWr().wrId(6).sge(a.memory.address(), 8, 0xBAD).inline(true).signaled(true));
        a.memory.set(ValueLayout.JAVA_LONG, 0, 0); // after the post: must not change what is sent
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x0102030405060708L);
    }

    // ---- regMr -------------------------------------------------------------------------------

    @Test
    @DisplayName("regMr of a segment whose arena is closed is EINVAL")
    void regMrOfClosedArenaIsEinval() {
        Arena arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(4096);
        arena.close();
        assertThatThrownBy(() -> a.pd.regMr(memory, TwoNodes.ALL_ACCESS)).isInstanceOfSatisfying(
                VerbsException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e).hasMessageContaining("closed");
                });
    }

    @Test
    @DisplayName("regMr of a segment confined to another thread is EINVAL")
    void regMrOfSegmentConfinedToAnotherThreadIsEinval() throws InterruptedException {
        MemorySegment[] confined = new MemorySegment[1];
        Thread owner = new Thread(() -> confined[0] = Arena.ofConfined().allocate(4096));
        owner.start();
        owner.join();
        assertThatThrownBy(() -> a.pd.regMr(confined[0], TwoNodes.ALL_ACCESS)).isInstanceOfSatisfying(
                VerbsException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e).hasMessageContaining("confined to another thread");
                });
    }

    @Test
    @DisplayName("threaded fabric: regMr of a segment confined to the caller is EINVAL (the event loop could not reach it)")
    void regMrOfConfinedSegmentOnThreadedFabricIsEinval() {
        try (TwoNodes threaded = new TwoNodes(Fabric.threaded()); Arena confined = Arena.ofConfined()) {
            MemorySegment memory = confined.allocate(4096);
            assertThatThrownBy(() -> threaded.a.pd.regMr(memory, TwoNodes.ALL_ACCESS)).isInstanceOfSatisfying(
                    VerbsException.class, e -> {
                        assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                        assertThat(e).hasMessageContaining("Arena.ofConfined");
                    });
        }
    }

    // ---- the requester's memory fails: LOC_PROT_ERR ------------------------------------------

    @Test
    @DisplayName("arena closed after regMr, then SEND/WRITE from it: LOC_PROT_ERR, QP in ERR, the rest flushed, counted")
    void closedArenaUnderSendAndWrite() {
        for (boolean write : new boolean[] {false, true}) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[1].postRecv(RecvWr.of(9, b.mr, 0, 4096));
            Arena arena = Arena.ofShared();
            Mr source = regionInOwnArena(a, arena, 4096);
            arena.close();
            long before = nodes.rnicA.counter(RnicCounter.MEMORY_ACCESS_ERRORS);
            pair[0].postSend(write ? SendWr.rdmaWrite(1, source, 0, 2048, b.mr.address(), b.mr.rkey())
                    : SendWr.send(1, source, 0, 2048));
            pair[0].postSend(SendWr.send(2, a.mr, 0, 8));
            assertThat(a.pollAll()).as(write ? "WRITE" : "SEND")
                    .extracting(WorkCompletion::wrId, WorkCompletion::status)
                    .containsExactly(tuple(1L, WcStatus.LOC_PROT_ERR), tuple(2L, WcStatus.WR_FLUSH_ERR));
            assertThat(pair[0].state()).isEqualTo(QpState.ERR);
            assertThat(nodes.rnicA.counter(RnicCounter.MEMORY_ACCESS_ERRORS)).isEqualTo(before + 1);
            assertThat(a.context.pollAsyncEvent()).as("libibverbs raises no event for a local completion error")
                    .isEmpty();
            b.pollAll();
        }
    }

    @Test
    @DisplayName("arena closed after regMr, then a READ or atomic into it: LOC_PROT_ERR, QP in ERR, flushed, counted")
    void closedArenaUnderReadAndAtomicResult() {
        for (boolean atomic : new boolean[] {false, true}) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Arena arena = Arena.ofShared();
            Mr sink = regionInOwnArena(a, arena, 4096);
            arena.close();
            long before = nodes.rnicA.counter(RnicCounter.MEMORY_ACCESS_ERRORS);
            pair[0].postSend(atomic ? SendWr.fetchAndAdd(1, sink, 0, b.mr.address(), b.mr.rkey(), 1)
                    : SendWr.rdmaRead(1, sink, 0, 2048, b.mr.address(), b.mr.rkey()));
            pair[0].postSend(SendWr.send(2, a.mr, 0, 8));
            assertThat(a.pollAll()).as(atomic ? "atomic" : "READ")
                    .extracting(WorkCompletion::wrId, WorkCompletion::status)
                    .containsExactly(tuple(1L, WcStatus.LOC_PROT_ERR), tuple(2L, WcStatus.WR_FLUSH_ERR));
            assertThat(pair[0].state()).isEqualTo(QpState.ERR);
            assertThat(nodes.rnicA.counter(RnicCounter.MEMORY_ACCESS_ERRORS)).isEqualTo(before + 1);
        }
    }

    // ---- the responder's memory fails: NAK remote operational error --------------------------

    @Test
    @DisplayName("remote WRITE into a region whose arena is closed: NAK remote op error, REM_OP_ERR, responder ERR + QP_FATAL")
    void remoteWriteIntoClosedArena() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        pair[1].postRecv(RecvWr.of(9, b.mr, 0, 64));
        Arena arena = Arena.ofShared();
        Mr target = regionInOwnArena(b, arena, 4096);
        arena.close();
        pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 2048, target.address(), target.rkey()));
        pair[0].postSend(SendWr.send(2, a.mr, 0, 8));
        assertThat(a.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(1L, WcStatus.REM_OP_ERR), tuple(2L, WcStatus.WR_FLUSH_ERR));
        assertThat(pair[0].state()).isEqualTo(QpState.ERR);
        assertThat(pair[1].state()).isEqualTo(QpState.ERR);
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(9L, WcStatus.WR_FLUSH_ERR));
        assertThat(b.context.pollAsyncEvent()).contains(AsyncEvent.of(AsyncEventType.QP_FATAL, pair[1]));
        assertThat(nodes.rnicB.counter(RnicCounter.MEMORY_ACCESS_ERRORS)).isEqualTo(1);
        assertThat(nodes.rnicB.counter(RnicCounter.NAKS_SENT)).isEqualTo(1);
    }

    @Test
    @DisplayName("remote READ and atomic on a region whose arena is closed: REM_OP_ERR at the requester, responder ERR")
    void remoteReadAndAtomicOnClosedArena() {
        for (boolean atomic : new boolean[] {false, true}) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Arena arena = Arena.ofShared();
            Mr target = regionInOwnArena(b, arena, 4096);
            arena.close();
            long before = nodes.rnicB.counter(RnicCounter.MEMORY_ACCESS_ERRORS);
            pair[0].postSend(atomic ? SendWr.compareAndSwap(1, a.mr, 0, target.address(), target.rkey(), 0, 1)
                    : SendWr.rdmaRead(1, a.mr, 0, 3000, target.address(), target.rkey()));
            assertThat(a.pollAll()).as(atomic ? "atomic" : "READ").extracting(WorkCompletion::status)
                    .containsExactly(WcStatus.REM_OP_ERR);
            assertThat(nodes.rnicB.counter(RnicCounter.MEMORY_ACCESS_ERRORS)).isEqualTo(before + 1);
            assertThat(pair[1].state()).isEqualTo(QpState.ERR);
            assertThat(b.context.pollAsyncEvent()).contains(AsyncEvent.of(AsyncEventType.QP_FATAL, pair[1]));
        }
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {100, 2048}) // 2048: two packets of 1 KiB, their payload placed from A's region by reference
    @DisplayName("SEND into a receive WQE whose arena is closed: LOC_QP_OP_ERR at the responder (rxe class A), REM_OP_ERR")
    void sendIntoClosedReceiveBuffer(int bytes) {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        Arena arena = Arena.ofShared();
        Mr receive = regionInOwnArena(b, arena, 4096);
        pair[1].postRecv(RecvWr.of(9, receive, 0, 4096));
        pair[1].postRecv(RecvWr.of(10, b.mr, 0, 64));
        arena.close();
        pair[0].postSend(SendWr.send(1, a.mr, 0, bytes));
        assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_OP_ERR);
        assertThat(b.pollAll()).extracting(WorkCompletion::wrId, WorkCompletion::status)
                .containsExactly(tuple(9L, WcStatus.LOC_QP_OP_ERR), tuple(10L, WcStatus.WR_FLUSH_ERR));
        assertThat(pair[1].state()).isEqualTo(QpState.ERR);
    }

    // ---- deregistration under WQEs in flight -----------------------------------------------------

    @Test
    @DisplayName("a region deregistered under a WRITE it is the source of: the rest is never read, LOC_PROT_ERR")
    void sourceDeregisteredMidMessage() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        try (Arena arena = Arena.ofShared()) {
            Mr source = regionInOwnArena(a, arena, 64 * 1024);
            pair[0].postSend(SendWr.rdmaWrite(1, source, 0, 64 * 1024, b.mr.address(), b.mr.rkey()));
            nodes.fabric.step(); // one duty cycle of A: the first 16 of 64 packets
            assertThat(nodes.rnicA.counter(RnicCounter.FRAMES_SENT)).isBetween(1L, 63L);
            source.close();
            assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.LOC_PROT_ERR);
            assertThat(pair[0].state()).isEqualTo(QpState.ERR);
        }
    }

    @Test
    @DisplayName("a region deregistered under a remote WRITE into it: not one byte written after, REM_ACCESS_ERR (rkey gone)")
    void targetDeregisteredMidMessageIsNeverTouchedAgain() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        try (Arena arena = Arena.ofShared()) {
            Mr target = regionInOwnArena(b, arena, 64 * 1024);
            MemorySegment memory = target.segment();
            memory.fill((byte) 0x33);
            a.memory.asSlice(0, 64 * 1024).fill((byte) 0x77);
            pair[0].postSend(SendWr.rdmaWrite(1, a.mr, 0, 64 * 1024, target.address(), target.rkey()));
            while (nodes.rnicB.counter(RnicCounter.PACKETS_RECEIVED) == 0) {
                assertThat(nodes.fabric.step()).as("the fabric has work until B receives").isTrue();
            }
            target.close();
            byte[] atDeregistration = memory.toArray(ValueLayout.JAVA_BYTE);
            assertThat(atDeregistration[0]).as("the first packet was written before").isEqualTo((byte) 0x77);
            assertThat(a.pollAll()).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_ACCESS_ERR);
            assertThat(memory.toArray(ValueLayout.JAVA_BYTE)).as("bytes after deregistration")
                    .isEqualTo(atDeregistration);
            assertThat(pair[1].state()).isEqualTo(QpState.ERR);
        }
    }

    // ---- atomics on a region whose native address is misaligned ---------------------------------

    @Test
    @DisplayName("Linux ib_uverbs_reg_mr: an IOVA cannot be 8-aligned where the native address is not (the page offset is kept), "
            + "so an aligned atomic never touches a misaligned native address")
    void iovaKeepsTheNativeAddresssPageOffset() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment backing = arena.allocate(4096 + 8, 4096);
            MemorySegment odd = backing.asSlice(3, 4096); // native address = 3 (mod 8)
            assertThatThrownBy(() -> b.pd.regMr(odd, 0x10000, TwoNodes.ALL_ACCESS)).isInstanceOfSatisfying(
                    VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            Mr kept = b.pd.regMr(odd, 0x10003, TwoNodes.ALL_ACCESS);
            assertThat(kept.address()).isEqualTo(0x10003);
        }
    }
}
