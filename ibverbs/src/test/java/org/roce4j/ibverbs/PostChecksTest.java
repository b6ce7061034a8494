package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WrOpcode;

/**
 * What the provider refuses before calling the device's post_send (a context whose ops count the
 * calls: they point at libc's {@code sched_yield}, which returns 0): UD sends without an address
 * handle and use after close; opcodes the QP type does not allow are not refused (the device fails them).
 */
class PostChecksTest {
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void free() {
        arena.close();
    }

    private IbvQp qp(QpType type) {
        MemorySegment returnsZero = Linker.nativeLinker().defaultLookup().findOrThrow("sched_yield");
        MemorySegment context = arena.allocate(Layouts.IBV_CONTEXT);
        for (String op : List.of("post_send", "post_recv", "poll_cq")) {
            context.set(ADDRESS, Layouts.offset(Layouts.IBV_CONTEXT, "ops." + op), returnsZero);
        }
        MemorySegment cqStruct = arena.allocate(Layouts.IBV_CQ);
        cqStruct.set(JAVA_INT, Layouts.offset(Layouts.IBV_CQ, "cqe"), 16);
        IbvContext ctx = new IbvContext(null, null, context);
        IbvPd pd = new IbvPd(ctx, arena.allocate(Layouts.IBV_PD));
        IbvCq cq = new IbvCq(ctx, cqStruct, null);
        return new IbvQp(pd, arena.allocate(Layouts.IBV_QP), QpInitAttr.of(type, cq, QpCap.of(8, 8)), cq, cq, null, ignored -> { });
    }

    private static SendWr wr(long id, WrOpcode opcode) {
        return new SendWr().wrId(id).opcode(opcode).sge(0x1000, 8, 1).remote(0x2000, 2).signaled(true);
    }

    @Test
    void anOpcodeTheQpTypeDoesNotAllowGoesToTheProvider() {
        // libibverbs and rxe's provider post it and the device fails it (LOC_QP_OP_ERR, QP to ERR): this
        // backend adds no check the device does not make (rxe-6.1.txt note [3]).
        IbvQp uc = qp(QpType.UC);
        assertThatCode(() -> uc.postSend(List.of(wr(1, WrOpcode.RDMA_WRITE), wr(2, WrOpcode.RDMA_READ),
                wr(3, WrOpcode.ATOMIC_FETCH_AND_ADD), wr(4, WrOpcode.SEND)))).doesNotThrowAnyException();
    }

    @Test
    void aUdSendWithoutAnAddressHandleIsEinvalBeforeTheProviderSeesIt() {
        assertThatThrownBy(() -> qp(QpType.UD).postSend(wr(4, WrOpcode.SEND)))
                .isInstanceOfSatisfying(BadWorkRequestException.class, bad -> {
                    assertThat(bad.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(bad).hasMessageContaining("address handle");
                });
    }

    @Test
    void allowedOpcodesReachThePostFunction() {
        IbvQp rc = qp(QpType.RC);
        for (WrOpcode opcode : WrOpcode.values()) {
            if (opcode != WrOpcode.BIND_MW) {   // needs a window: the next test
                rc.postSend(wr(5, opcode));   // sched_yield answers 0: posted
            }
        }
    }

    @Test
    void aBindMwWithoutAWindowAndRegionOfThisProviderIsEinvalBeforeTheProviderSeesIt() {
        // rdma-core's rxe convert_send_wr reads bind_info.mr->lkey and mw->rkey: NULL would kill the JVM.
        assertThatThrownBy(() -> qp(QpType.RC).postSend(wr(6, WrOpcode.BIND_MW)))
                .isInstanceOfSatisfying(BadWorkRequestException.class, bad -> {
                    assertThat(bad.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(bad).hasMessageContaining("BIND_MW");
                });
    }

    @Test
    void inlineDataOutsideMemoryRegisteredOnTheContextIsEinvalBeforeTheProviderSeesIt() {
        // The provider would copy from these addresses inside post_send: 0x10 would kill the JVM.
        IbvQp rc = qp(QpType.RC);
        MemorySegment registered = arena.allocate(64);
        ((IbvPd) rc.pd()).context.registeredMemory.add(registered);
        SendWr fromRegistered = new SendWr().wrId(1).sge(registered.address() + 8, 16, 0).inline(true);
        SendWr fromAddress0x10 = new SendWr().wrId(2).sge(0x10, 16, 0).inline(true);
        SendWr fromUnregistered = new SendWr().wrId(3).sge(arena.allocate(64).address(), 16, 0).inline(true);
        assertThatThrownBy(() -> rc.postSend(List.of(fromRegistered, fromAddress0x10)))
                .isInstanceOfSatisfying(BadWorkRequestException.class, bad -> {
                    assertThat(bad.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(bad.index()).isEqualTo(1);
                    assertThat(bad.wrId()).isEqualTo(2);
                    assertThat(bad).hasMessageContaining("INLINE data of SGE 0 (16 bytes at 0x10)");
                });
        assertThatThrownBy(() -> rc.postSend(fromUnregistered)).isInstanceOfSatisfying(BadWorkRequestException.class,
                bad -> assertThat(bad.errno()).isEqualTo(Errno.EINVAL));
        rc.postSend(fromRegistered); // inside the registration: reaches post_send
        ((IbvPd) rc.pd()).context.registeredMemory.remove(registered);
        assertThatThrownBy(() -> rc.postSend(fromRegistered)).isInstanceOfSatisfying(BadWorkRequestException.class,
                bad -> assertThat(bad.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    void aClosedQueuePairIsEinval() {
        IbvQp rc = qp(QpType.RC);
        // Closing would call ibv_destroy_qp: mark it closed through closeOnce with a no-op destroy.
        rc.closeOnce("test", "none", () -> { });
        assertThatThrownBy(() -> rc.postSend(wr(6, WrOpcode.SEND)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }
}
