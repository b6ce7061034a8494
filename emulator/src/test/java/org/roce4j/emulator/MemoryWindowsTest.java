package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.FrameClass;
import org.roce4j.emulator.fabric.FrameMatch;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBind;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/** Memory windows on the emulator (rxe_mw.c is the model): binding, access through them, invalidation, errors. */
class MemoryWindowsTest {
    private static final Set<AccessFlag> BINDABLE = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND);
    private static final Set<AccessFlag> WRITE_READ = EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ);

    private static List<WorkCompletion> poll(TwoNodes.Side side) {
        return side.pollAll();
    }

    /** B's region of 64 KiB at offset 64 KiB of its memory, open to windows only (no remote rights of its own). */
    private static Mr windowRegion(TwoNodes nodes) {
        return nodes.b.pd.regMr(nodes.b.memory.asSlice(65536, 65536), BINDABLE);
    }

    private static int bindType1(TwoNodes nodes, Qp qp, Mw mw, Mr mr, long offset, long length, Set<AccessFlag> rights) {
        qp.bindMw(mw, new MwBind(7, SendFlag.SIGNALED.bit(), new MwBindInfo(mr, mr.address() + offset, length, rights)));
        return mw.rkey();
    }

    private static WcStatus writeThrough(TwoNodes nodes, Qp qa, long remoteAddr, int rkey, int length) {
        qa.postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, length, remoteAddr, rkey));
        List<WorkCompletion> wcs = poll(nodes.a);
        assertThat(wcs).hasSize(1);
        return wcs.getFirst().status();
    }

    @Test
    @DisplayName("IBTA 10.6.7.2.2: a type 1 bind completes BIND_MW, gives the window ibv_inc_rkey of its key, and "
            + "a remote WRITE through it lands; the old key is refused after a rebind")
    void type1BindWriteAndRebind() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mr mr = windowRegion(nodes);
            Mw mw = nodes.b.pd.allocMw(MwType.TYPE_1);
            int allocated = mw.rkey();
            int first = bindType1(nodes, pair[1], mw, mr, 4096, 4096, WRITE_READ);
            assertThat(first).isEqualTo(Mw.incRkey(allocated)).isNotEqualTo(allocated);
            List<WorkCompletion> bound = poll(nodes.b);
            assertThat(bound).extracting(WorkCompletion::opcode).containsExactly(WcOpcode.BIND_MW);
            assertThat(bound).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            nodes.a.memory.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
            assertThat(writeThrough(nodes, pair[0], mr.address() + 4096, first, 8)).isEqualTo(WcStatus.SUCCESS);
            assertThat(mr.segment().get(ValueLayout.JAVA_LONG, 4096)).isEqualTo(0x1122334455667788L);

            int second = bindType1(nodes, pair[1], mw, mr, 0, 64, WRITE_READ);
            assertThat(second).isEqualTo(Mw.incRkey(first));
            poll(nodes.b);
            assertThat(writeThrough(nodes, pair[0], mr.address(), first, 8)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(pair[1].state()).isEqualTo(QpState.ERR);
        }
    }

    @Test
    @DisplayName("IBTA 10.6.7: an access beyond the window but inside its region is REM_ACCESS_ERR, nothing written")
    void accessOutsideTheWindowIsRefused() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mr mr = windowRegion(nodes);
            Mw mw = nodes.b.pd.allocMw(MwType.TYPE_1);
            int rkey = bindType1(nodes, pair[1], mw, mr, 4096, 64, WRITE_READ);
            poll(nodes.b);
            nodes.a.memory.set(ValueLayout.JAVA_LONG, 0, -1L);
            assertThat(writeThrough(nodes, pair[0], mr.address() + 4096 + 60, rkey, 8)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(mr.segment().get(ValueLayout.JAVA_LONG, 4096 + 56)).isZero();
            assertThat(mr.segment().get(ValueLayout.JAVA_LONG, 4096 + 64)).isZero();
        }
    }

    @Test
    @DisplayName("rxe (rxe_resp.c check_rkey: mr_check_range on the window's MR): an access beyond the window but "
            + "inside its region lands (Quirk.WINDOW_ACCESS_CHECKED_AGAINST_ITS_REGION_ONLY)")
    void rxeChecksOnlyTheRegionsBounds() {
        for (DeviceProfile profile : List.of(DeviceProfile.RXE_6_1, DeviceProfile.RXE_6_12)) {
            try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
                Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
                Mr mr = windowRegion(nodes);
                Mw mw = nodes.b.pd.allocMw(MwType.TYPE_1);
                int rkey = bindType1(nodes, pair[1], mw, mr, 4096, 64, WRITE_READ);
                poll(nodes.b);
                nodes.a.memory.set(ValueLayout.JAVA_LONG, 0, -1L);
                assertThat(writeThrough(nodes, pair[0], mr.address() + 8192, rkey, 8)).isEqualTo(WcStatus.SUCCESS);
                assertThat(mr.segment().get(ValueLayout.JAVA_LONG, 8192)).isEqualTo(-1L);
                assertThat(writeThrough(nodes, pair[0], mr.address() + 65536 - 4, rkey, 8))
                        .isEqualTo(WcStatus.REM_ACCESS_ERR); // the region's bounds still hold
            }
        }
    }

    @Test
    @DisplayName("C10-73, C10-74, C10-75: binding to a region without MW_BIND, write rights on a region without "
            + "LOCAL_WRITE, or beyond the region completes MW_BIND_ERR and the QP goes to ERR")
    void bindErrorsAreMwBindErr() {
        try (TwoNodes nodes = new TwoNodes()) {
            Mr noBind = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 4096), EnumSet.of(AccessFlag.LOCAL_WRITE));
            Mr readOnly = nodes.b.pd.regMr(nodes.b.memory.asSlice(4096, 4096), EnumSet.of(AccessFlag.MW_BIND));
            Mr bindable = windowRegion(nodes);
            List<MwBindInfo> bad = List.of(new MwBindInfo(noBind, noBind.address(), 64, WRITE_READ),
                    new MwBindInfo(readOnly, readOnly.address(), 64, EnumSet.of(AccessFlag.REMOTE_WRITE)),
                    new MwBindInfo(bindable, bindable.address() + 65536 - 32, 64, WRITE_READ));
            for (MwBindInfo info : bad) {
                Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
                Mw mw = nodes.b.pd.allocMw(MwType.TYPE_1);
                pair[1].bindMw(mw, new MwBind(9, SendFlag.SIGNALED.bit(), info));
                assertThat(poll(nodes.b)).extracting(WorkCompletion::status).as(info.toString())
                        .containsExactly(WcStatus.MW_BIND_ERR);
                assertThat(pair[1].state()).isEqualTo(QpState.ERR);
            }
            // A read-only window on a region without LOCAL_WRITE is fine (C10-74 is about write rights).
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mw mw = nodes.b.pd.allocMw(MwType.TYPE_1);
            pair[1].bindMw(mw, new MwBind(9, SendFlag.SIGNALED.bit(),
                    new MwBindInfo(readOnly, readOnly.address(), 64, EnumSet.of(AccessFlag.REMOTE_READ))));
            assertThat(poll(nodes.b)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 20, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    @DisplayName("a window's key family is one no region key (live or retired) falls in: allocating windows after "
            + "hundreds of regions came and went finds one, on the counted key layout and the random one")
    void windowsAreAllocatedAfterManyDeregistrations() {
        for (Fabric fabric : List.of(Fabric.deterministic(), Fabric.threaded())) {
            try (TwoNodes nodes = new TwoNodes(fabric)) {
                Mr mr = windowRegion(nodes);
                List<Mr> regions = new java.util.ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    regions.add(nodes.b.pd.regMr(nodes.b.memory.asSlice(0, 64), BINDABLE));
                }
                regions.forEach(Mr::close); // 300 freed slots, each with a retired key
                for (int i = 0; i < 100; i++) {
                    Mw mw = nodes.b.pd.allocMw(MwType.TYPE_1);
                    assertThat(mw.rkey() & ~0xFF).isNotEqualTo(mr.lkey() & ~0xFF).isNotZero();
                    mw.close();
                }
            }
        }
    }

    @Test
    @DisplayName("ibv_bind_mw's own checks: a type 2 window EINVAL, a region of another PD EPERM; dereg of a "
            + "region with a window bound EINVAL (rxe_dereg_mr), dealloc of a PD with a window EBUSY")
    void synchronousErrors() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mr mr = windowRegion(nodes);
            Mw type2 = nodes.b.pd.allocMw(MwType.TYPE_2);
            MwBind bind = new MwBind(1, 0, new MwBindInfo(mr, mr.address(), 64, WRITE_READ));
            assertThatThrownBy(() -> pair[1].bindMw(type2, bind)).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            Mw otherPd = nodes.b.context.allocPd().allocMw(MwType.TYPE_1);
            assertThatThrownBy(() -> pair[1].bindMw(otherPd, bind)).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EPERM));
            Mw type1 = nodes.b.pd.allocMw(MwType.TYPE_1);
            pair[1].bindMw(type1, bind);
            poll(nodes.b); // the bind executes when the requester reaches it
            assertThatThrownBy(mr::close).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThatThrownBy(otherPd.pd()::close).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
            type1.close();
            mr.close(); // unbound by the dealloc
        }
    }

    @Test
    @DisplayName("IBTA 10.6.7.2.4: a type 2 window bound by a BIND_MW WR serves only that QP; LOCAL_INV frees it, "
            + "after which its key is refused; it binds again only once free (o10-37.2.30)")
    void type2BoundToItsQpAndInvalidated() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Qp[] other = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mr mr = windowRegion(nodes);
            Mw mw = nodes.b.pd.allocMw(MwType.TYPE_2);
            int rkey = Mw.incRkey(mw.rkey());
            MwBindInfo info = new MwBindInfo(mr, mr.address(), 4096, WRITE_READ);
            pair[1].postSend(SendWr.bindMw(3, mw, rkey, info));
            assertThat(poll(nodes.b)).extracting(WorkCompletion::opcode, WorkCompletion::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(WcOpcode.BIND_MW, WcStatus.SUCCESS));
            assertThat(mw.rkey()).as("a WR bind leaves ibv_mw.rkey alone").isNotEqualTo(rkey);
            assertThat(writeThrough(nodes, pair[0], mr.address(), rkey, 8)).isEqualTo(WcStatus.SUCCESS);
            assertThat(writeThrough(nodes, other[0], mr.address(), rkey, 8)).isEqualTo(WcStatus.REM_ACCESS_ERR);

            pair[1].postSend(SendWr.localInv(4, rkey));
            assertThat(poll(nodes.b)).extracting(WorkCompletion::opcode, WorkCompletion::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(WcOpcode.LOCAL_INV, WcStatus.SUCCESS));
            assertThat(writeThrough(nodes, pair[0], mr.address(), rkey, 8)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    @DisplayName("IBTA 9.7.4.1.3: a go-back-N after a lost SEND resends the SENDs around a BIND_MW and LOCAL_INV, "
            + "never the local operations, which executed once")
    void aRewindPassesOverLocalOperationsThatExecuted() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mr mr = nodes.a.pd.regMr(nodes.a.memory.asSlice(65536, 65536), BINDABLE);
            Mw mw = nodes.a.pd.allocMw(MwType.TYPE_2);
            int rkey = Mw.incRkey(mw.rkey());
            for (int i = 0; i < 3; i++) {
                pair[1].postRecv(RecvWr.of(10 + i, nodes.b.mr, 64L * i, 64));
            }
            nodes.fabric.faults(Faults.seeded(1).dropNth(1, FrameMatch.only(FrameClass.REQUESTS)));
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 8));
            pair[0].postSend(SendWr.bindMw(2, mw, rkey, new MwBindInfo(mr, mr.address(), 4096, WRITE_READ)));
            pair[0].postSend(SendWr.send(3, nodes.a.mr, 0, 8));
            pair[0].postSend(SendWr.localInv(4, rkey));
            pair[0].postSend(SendWr.send(5, nodes.a.mr, 0, 8));

            assertThat(poll(nodes.a)).extracting(WorkCompletion::wrId, WorkCompletion::status).containsExactly(
                    org.assertj.core.groups.Tuple.tuple(1L, WcStatus.SUCCESS), org.assertj.core.groups.Tuple.tuple(2L, WcStatus.SUCCESS),
                    org.assertj.core.groups.Tuple.tuple(3L, WcStatus.SUCCESS), org.assertj.core.groups.Tuple.tuple(4L, WcStatus.SUCCESS),
                    org.assertj.core.groups.Tuple.tuple(5L, WcStatus.SUCCESS));
            assertThat(poll(nodes.b)).extracting(WorkCompletion::wrId).containsExactly(10L, 11L, 12L);
            assertThat(nodes.fabric.faultCounters().dropped()).isOne();
            assertThat(nodes.rnicA.counter(RnicCounter.RETRIES)).isPositive();
        }
    }

    @Test
    @DisplayName("o10-37.2.30: binding a type 2 window already bound is MW_BIND_ERR; C10-72: a QP of another PD too")
    void type2RebindWithoutInvalidateIsMwBindErr() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mr mr = windowRegion(nodes);
            Mw mw = nodes.b.pd.allocMw(MwType.TYPE_2);
            MwBindInfo info = new MwBindInfo(mr, mr.address(), 4096, WRITE_READ);
            pair[1].postSend(SendWr.bindMw(3, mw, mw.rkey(), info));
            pair[1].postSend(SendWr.bindMw(4, mw, mw.rkey(), info));
            assertThat(poll(nodes.b)).extracting(WorkCompletion::status)
                    .containsExactly(WcStatus.SUCCESS, WcStatus.MW_BIND_ERR);
            assertThat(pair[1].state()).isEqualTo(QpState.ERR);
        }
    }

    @OnEveryProfile
    @DisplayName("the receive of a SEND_WITH_INV carries IBV_WC_WITH_INV; rxe's carries IP_CSUM_OK, the kernel's "
            + "IB_WC_WITH_INVALIDATE bit read by libibverbs (Quirk.WITH_INV_REPORTED_AS_IP_CSUM_OK)")
    void sendWithInvalidateFlags(DeviceProfile profile) {
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), profile)) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mr mr = windowRegion(nodes);
            Mw mw = nodes.b.pd.allocMw(MwType.TYPE_2);
            int rkey = Mw.incRkey(mw.rkey());
            pair[1].postSend(SendWr.bindMw(3, mw, rkey, new MwBindInfo(mr, mr.address(), 4096, WRITE_READ)));
            poll(nodes.b);
            pair[1].postRecv(RecvWr.of(10, nodes.b.mr, 0, 64));
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 16).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey));
            WorkCompletion received = poll(nodes.b).getFirst();
            boolean rxe = profile != DeviceProfile.LINUX;
            assertThat(received.has(org.roce4j.verbs.WcFlag.WITH_INV)).isEqualTo(!rxe);
            assertThat(received.has(org.roce4j.verbs.WcFlag.IP_CSUM_OK)).isEqualTo(rxe);
            assertThat(received.invalidatedRkey()).isEqualTo(rkey);
        }
    }

    @Test
    @DisplayName("SEND_WITH_INV of a type 2 window's rkey frees it at the responder (IBTA 10.6.7.2.4); of a type 1 "
            + "window's it fails (o10-37.2.26): REM_INV_REQ_ERR")
    void sendWithInvalidate() {
        try (TwoNodes nodes = new TwoNodes()) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mr mr = windowRegion(nodes);
            Mw mw = nodes.b.pd.allocMw(MwType.TYPE_2);
            int rkey = Mw.incRkey(mw.rkey());
            pair[1].postSend(SendWr.bindMw(3, mw, rkey, new MwBindInfo(mr, mr.address(), 4096, WRITE_READ)));
            poll(nodes.b);
            pair[1].postRecv(RecvWr.of(10, nodes.b.mr, 0, 64));
            pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 16).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey));
            assertThat(poll(nodes.a)).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            List<WorkCompletion> received = poll(nodes.b);
            assertThat(received).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS);
            assertThat(received.getFirst().invalidatedRkey()).isEqualTo(rkey);
            assertThat(writeThrough(nodes, pair[0], mr.address(), rkey, 8)).isEqualTo(WcStatus.REM_ACCESS_ERR);

            Qp[] second = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Mw type1 = nodes.b.pd.allocMw(MwType.TYPE_1);
            int key1 = bindType1(nodes, second[1], type1, mr, 0, 64, WRITE_READ);
            poll(nodes.b);
            second[1].postRecv(RecvWr.of(10, nodes.b.mr, 0, 64));
            second[0].postSend(SendWr.send(1, nodes.a.mr, 0, 16).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(key1));
            assertThat(poll(nodes.b)).extracting(WorkCompletion::status).containsExactly(WcStatus.REM_INV_REQ_ERR);
            poll(nodes.a);
        }
    }
}
