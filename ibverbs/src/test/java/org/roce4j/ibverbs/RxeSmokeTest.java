package org.roce4j.ibverbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.PortAttr;

/**
 * The provider on a real device (rxe0 in a Soft-RoCE VM: ibverbs/run-in-vm): two RC QPs of one
 * device connected to each other through the port's IPv4-mapped GID, and every RC opcode between
 * them with the bytes checked.
 */
@Tag("device")
class RxeSmokeTest {
    static final Set<AccessFlag> ALL = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    private final Arena arena = Arena.ofShared();
    private Context context;
    private Pd pd;
    private Cq cq;
    private Mr mrA;
    private Mr mrB;
    private Qp a;
    private Qp b;

    static Device device() {
        String wanted = System.getProperty("roce4j.ibverbs.device", "rxe0");
        return new IbverbsProvider().devices().stream().filter(d -> d.name().equals(wanted)).findFirst()
                .orElseThrow(() -> new AssertionError("no device " + wanted + ": " + IbverbsProvider.diagnostic()));
    }

    @BeforeEach
    void connect() {
        context = device().open();
        pd = context.allocPd();
        cq = context.createCq(64);
        mrA = pd.regMr(arena.allocate(8192, 4096), ALL);
        mrB = pd.regMr(arena.allocate(8192, 4096), ALL);
        a = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 16)));
        b = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 16)));
        Gid gid = context.queryGid(1, 1);
        QpBringUp bringUp = QpBringUp.pingpong().withRdAtomic(16, 16);
        bringUp.init(a);
        bringUp.init(b);
        for (Qp qp : List.of(a, b)) {
            Qp peer = qp == a ? b : a;
            bringUp.readyToReceive(qp, new QpBringUp.Remote(peer.qpNum(), peer == a ? 100 : 200, gid));
            bringUp.readyToSend(qp, qp == a ? 100 : 200);
        }
    }

    @AfterEach
    void close() {
        for (AutoCloseable c : new AutoCloseable[] {a, b, mrA, mrB, cq, pd, context}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        arena.close();
    }

    Mr mrA() { return mrA; }
    Mr mrB() { return mrB; }
    Cq cq() { return cq; }
    Qp a() { return a; }
    Qp b() { return b; }

    @Test
    void theDeviceAndItsPortLookLikeSoftRoce() {
        assertThat(context.queryDevice().physPortCnt()).isEqualTo(1);
        PortAttr port = context.queryPort(1);
        assertThat(port.state()).isEqualTo(PortAttr.PortState.ACTIVE);
        assertThat(port.linkLayer()).isEqualTo(PortAttr.LinkLayer.ETHERNET);
        assertThat(context.queryGid(1, 1).isIpv4Mapped()).isTrue();
        assertThat(a.state()).isEqualTo(QpState.RTS);
        assertThat(a.query(EnumSet.allOf(org.roce4j.verbs.QpAttrMask.class)).destQpNum()).isEqualTo(b.qpNum());
    }

    @Test
    void sendWithImmediateArrivesWithItsBytesAndValue() {
        fill(mrA.segment(), 0, 3000, (byte) 7);
        b.postRecv(RecvWr.of(1, mrB, 0, 4096));
        a.postSend(SendWr.sendWithImm(2, mrA, 0, 3000, 0x12345678));
        List<WorkCompletion> wcs = await(2);
        WorkCompletion recv = wcs.stream().filter(w -> w.opcode() == WcOpcode.RECV).findFirst().orElseThrow();
        assertThat(recv.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(recv.byteLen()).isEqualTo(3000);
        assertThat(recv.immData()).isEqualTo(0x12345678);
        assertThat(recv.qpNum()).isEqualTo(b.qpNum());
        assertThat(mrB.segment().asSlice(0, 3000).mismatch(mrA.segment().asSlice(0, 3000))).isEqualTo(-1);
    }

    @Test
    void writeThenReadBackTheSameBytes() {
        fill(mrA.segment(), 0, 5000, (byte) 0x5a);
        a.postSend(SendWr.rdmaWrite(3, mrA, 0, 5000, mrB.address() + 100, mrB.rkey()));
        assertThat(await(1).getFirst().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(mrB.segment().asSlice(100, 5000).mismatch(mrA.segment().asSlice(0, 5000))).isEqualTo(-1);
        a.postSend(SendWr.rdmaRead(4, mrA, 6000, 2000, mrB.address() + 100, mrB.rkey()));
        WorkCompletion read = await(1).getFirst();
        assertThat(read.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(read.opcode()).isEqualTo(WcOpcode.RDMA_READ);
        assertThat(mrA.segment().asSlice(6000, 2000).mismatch(mrB.segment().asSlice(100, 2000))).isEqualTo(-1);
    }

    @Test
    void atomicsReturnTheOriginalValueAndApply() {
        mrB.segment().set(ValueLayout.JAVA_LONG, 0, 40);
        a.postSend(SendWr.fetchAndAdd(5, mrA, 0, mrB.address(), mrB.rkey(), 2));
        assertThat(await(1).getFirst().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(mrA.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(40);
        assertThat(mrB.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);
        a.postSend(SendWr.compareAndSwap(6, mrA, 8, mrB.address(), mrB.rkey(), 42, 7));
        assertThat(await(1).getFirst().status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(mrA.segment().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(42);
        assertThat(mrB.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(7);
    }

    @Test
    void aWrongRkeyCompletesWithRemoteAccessError() {
        a.postSend(SendWr.rdmaWrite(7, mrA, 0, 64, mrB.address(), mrB.rkey() ^ 0x100));
        WorkCompletion wc = await(1).getFirst();
        assertThat(wc.wrId()).isEqualTo(7);
        assertThat(wc.status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    private static void fill(MemorySegment s, long from, long length, byte seed) {
        for (long i = 0; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, from + i, (byte) (seed + i * 31));
        }
    }

    private List<WorkCompletion> await(int n) {
        List<WorkCompletion> got = new ArrayList<>();
        WorkCompletion[] batch = new WorkCompletion[8];
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (got.size() < n) {
            int k = cq.poll(batch);
            for (int i = 0; i < k; i++) {
                got.add(batch[i]);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected " + n + " completions, got " + got);
            }
        }
        return got;
    }
}
