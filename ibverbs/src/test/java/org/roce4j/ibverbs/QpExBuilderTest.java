package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.FlushLevel;
import org.roce4j.verbs.FlushType;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.VerbsException;

/**
 * The ibv_wr_* builder over a fake {@code struct ibv_qp_ex} whose provider functions are libc's
 * {@code sched_yield} (returns 0) where the QP has the operation and NULL where it has not, as rxe's
 * set_qp_send_ops leaves them: what would crash in C (a NULL pointer, a set call writing into another WQE)
 * is refused before any call; wr_id and wr_flags land in the struct where the provider reads them.
 */
class QpExBuilderTest {
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void free() {
        arena.close();
    }

    private IbvQpEx qpEx(MemorySegment qpEx) {
        return qpEx(qpEx, EnumSet.of(SendOpsFlag.SEND, SendOpsFlag.RDMA_WRITE));
    }

    private IbvQpEx qpEx(MemorySegment qpEx, Set<SendOpsFlag> sendOps) {
        MemorySegment returnsZero = Linker.nativeLinker().defaultLookup().findOrThrow("sched_yield");
        for (String op : List.of("wr_start", "wr_complete", "wr_abort", "wr_send", "wr_rdma_write", "wr_set_sge",
                "wr_set_sge_list", "wr_set_inline_data", "wr_set_inline_data_list", "wr_set_ud_addr")) {
            qpEx.set(ADDRESS, Layouts.offset(ExtendedLayouts.IBV_QP_EX, op), returnsZero);
        }
        MemorySegment context = arena.allocate(Layouts.IBV_CONTEXT);
        MemorySegment cqStruct = arena.allocate(Layouts.IBV_CQ);
        cqStruct.set(JAVA_INT, Layouts.offset(Layouts.IBV_CQ, "cqe"), 16);
        IbvContext ctx = new IbvContext(null, null, context);
        IbvPd pd = new IbvPd(ctx, arena.allocate(Layouts.IBV_PD));
        IbvCq cq = new IbvCq(ctx, cqStruct, null);
        IbvQp qp = new IbvQp(pd, qpEx, QpInitAttr.of(QpType.RC, cq, QpCap.of(8, 8)), cq, cq, null, ignored -> { });
        return new IbvQpEx(qp, qpEx, sendOps);
    }

    @Test
    void wrFlushOfAQpCreatedWithoutFlushIsEopnotsuppWithoutReadingPastRdmaCore44sStruct() {
        // Exactly rdma-core 44's struct ibv_qp_ex: no wr_flush member behind wr_atomic_write.
        IbvQpEx qp = qpEx(arena.allocate(ExtendedLayouts.IBV_QP_EX));
        qp.wrStart();
        assertThatThrownBy(() -> qp.wrFlush(1, 0x1000, 64, FlushType.GLOBAL, FlushLevel.RANGE))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
        assertThat(qp.wrComplete()).isZero();
    }

    @Test
    void wrFlushCallsRdmaCore45sPointerRightAfterWrAtomicWrite() {
        // rdma-core 45's struct: wr_flush follows wr_atomic_write, at 44's sizeof.
        assertThat(ExtendedLayouts.WR_FLUSH_OFFSET).isEqualTo(
                Layouts.offset(ExtendedLayouts.IBV_QP_EX, "wr_atomic_write") + ADDRESS.byteSize());
        MemorySegment struct = arena.allocate(ExtendedLayouts.WR_FLUSH_OFFSET + ADDRESS.byteSize(), 8);
        IbvQpEx withNull = qpEx(struct, EnumSet.of(SendOpsFlag.FLUSH));
        withNull.wrStart();
        assertThatThrownBy(() -> withNull.wrFlush(1, 0x1000, 64, FlushType.GLOBAL, FlushLevel.MR))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
        withNull.wrAbort();
        struct.set(ADDRESS, ExtendedLayouts.WR_FLUSH_OFFSET,
                Linker.nativeLinker().defaultLookup().findOrThrow("sched_yield"));
        IbvQpEx qp = qpEx(struct, EnumSet.of(SendOpsFlag.FLUSH));
        qp.wrStart();
        qp.wrFlush(1, 0x1000, 64, FlushType.PERSISTENT, FlushLevel.RANGE);
        qp.wrSetSge(1, 0x1000, 0); // a set call after it is accepted: the FLUSH counted as the batch's request
        assertThat(qp.wrComplete()).isZero();
    }

    @Test
    void anOperationTheQpWasNotCreatedForIsEopnotsuppNotANullCall() {
        IbvQpEx qp = qpEx(arena.allocate(ExtendedLayouts.IBV_QP_EX));
        qp.wrStart();
        assertThatThrownBy(() -> qp.wrRdmaRead(1, 0x1000)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
        assertThatThrownBy(() -> qp.wrAtomicWrite(1, 0x1000, arena.allocate(8))).isInstanceOfSatisfying(
                VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
        assertThat(qp.wrComplete()).isZero();
    }

    @Test
    void callsOutsideABatchAndSetsBeforeAnOperationAreEinval() {
        IbvQpEx qp = qpEx(arena.allocate(ExtendedLayouts.IBV_QP_EX));
        assertThatThrownBy(qp::wrSend).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThatThrownBy(qp::wrComplete).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        qp.wrStart();
        assertThatThrownBy(() -> qp.wrSetSge(1, 0x1000, 8)).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThatThrownBy(qp::wrStart).as("a second wr_start would deadlock on rxe's spinlock")
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        qp.wrSend();
        qp.wrSetSge(1, 0x1000, 8);
        qp.wrAbort();
    }

    @Test
    void wrIdAndWrFlagsAreWrittenWhereTheProviderReadsThem() {
        MemorySegment struct = arena.allocate(ExtendedLayouts.IBV_QP_EX);
        IbvQpEx qp = qpEx(struct);
        qp.wrId(0x1122334455667788L);
        qp.wrFlags(0x5);
        assertThat(struct.get(JAVA_LONG, Layouts.offset(ExtendedLayouts.IBV_QP_EX, "wr_id"))).isEqualTo(0x1122334455667788L);
        assertThat(struct.get(JAVA_INT, Layouts.offset(ExtendedLayouts.IBV_QP_EX, "wr_flags"))).isEqualTo(5);
    }
}
