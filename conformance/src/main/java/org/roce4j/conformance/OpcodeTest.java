package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * Every operation on every QP type that allows it (IBTA table 38, {@link WrOpcode#isAllowedOn}),
 * with the data checked byte for byte in memory on both sides and the completions on both sides;
 * messages that span several packets at every path MTU; immediate data; atomics in host byte order.
 */
@ExtendWith(Backend.Resolver.class)
class OpcodeTest {
    static final int IMM = 0x12345678;
    static final long SEED = 0x5EED_0001L;

    private final Backend backend;

    OpcodeTest(Backend backend) {
        this.backend = backend;
    }

    static Stream<Arguments> allowedOpcodes() {
        List<Arguments> all = new ArrayList<>();
        for (QpType type : QpType.values()) {
            for (WrOpcode opcode : WrOpcode.values()) {
                if (opcode.isAllowedOn(type)) {
                    all.add(Arguments.of(type, opcode));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @DisplayName("IBTA table 38: each opcode a QP type allows moves the data and completes on both sides")
    @MethodSource("allowedOpcodes")
    void everyAllowedOpcode(QpType type, WrOpcode opcode) throws Exception {
        int length = type == QpType.UD ? 200 : 2500;
        switch (opcode) {
            case SEND, SEND_WITH_IMM -> send(type, Mtu.MTU_1024, opcode, length);
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> write(type, Mtu.MTU_1024, opcode, length);
            case RDMA_READ -> read(Mtu.MTU_1024, length);
            case ATOMIC_FETCH_AND_ADD -> fetchAndAdd(0x0000_0000_0000_00FFL, 1L);
            case ATOMIC_CMP_AND_SWP -> compareAndSwap(true);
            case SEND_WITH_INV -> sendWithInvalidate();
            case LOCAL_INV -> localInvalidate();
            case BIND_MW -> bindMw(type);
            // libibverbs posts ATOMIC WRITE through ibv_wr_atomic_write only (rxe's post_send would send the SGE
            // itself as the 8 bytes): the extended QP's builder, skipped where the device has no ATOMIC WRITE.
            case ATOMIC_WRITE -> new AtomicWriteTest(backend).atomicWriteStoresEightBytes();
            // FLUSH likewise (ibv_wr_flush, rdma-core 45): skipped where the device or the library lacks it.
            case FLUSH -> new FlushTest(backend).flushAfterWritesOfItsRange();
        }
    }

    static Stream<Arguments> multiPacket() {
        List<Arguments> all = new ArrayList<>();
        for (QpType type : List.of(QpType.RC, QpType.UC)) {
            for (Mtu mtu : Mtu.values()) {
                for (WrOpcode opcode : List.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
                        WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ)) {
                    if (opcode.isAllowedOn(type)) {
                        all.add(Arguments.of(type, mtu, opcode));
                    }
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @DisplayName("IBTA 9.7.3 (FIRST/MIDDLE/LAST segmentation): a message of 3×MTU+17 bytes")
    @MethodSource("multiPacket")
    void multiPacketMessages(QpType type, Mtu mtu, WrOpcode opcode) throws Exception {
        int length = 3 * mtu.bytes() + 17;
        switch (opcode) {
            case SEND, SEND_WITH_IMM -> send(type, mtu, opcode, length);
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> write(type, mtu, opcode, length);
            case RDMA_READ -> read(mtu, length);
            default -> throw new IllegalArgumentException(opcode.toString());
        }
    }

    static Stream<Arguments> smallestAndLargestMtu() {
        return multiPacket().filter(a -> a.get()[1] == Mtu.MTU_256 || a.get()[1] == Mtu.MTU_4096);
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @DisplayName("IBTA 9.7.3: a message of exactly 2×MTU bytes (no short last packet)")
    @MethodSource("smallestAndLargestMtu")
    void exactMultipleOfMtu(QpType type, Mtu mtu, WrOpcode opcode) throws Exception {
        int length = 2 * mtu.bytes();
        switch (opcode) {
            case SEND, SEND_WITH_IMM -> send(type, mtu, opcode, length);
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> write(type, mtu, opcode, length);
            case RDMA_READ -> read(mtu, length);
            default -> throw new IllegalArgumentException(opcode.toString());
        }
    }

    @Test
    @DisplayName("IBTA 9.4.1: a zero-length SEND completes with byte_len 0 and consumes one receive")
    void zeroLengthSend() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr dst = b.register(64);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 64));
            pair.qpA.postSend(new SendWr().wrId(2).opcode(WrOpcode.SEND).signaled(true));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            WorkCompletion recv = Completions.awaitOne(b.cq);
            Expect.success(recv, 1, WcOpcode.RECV);
            assertThat(recv.byteLen()).isZero();
            Bytes.assertUntouched(dst.segment(), 0, 64, "receive buffer of an empty SEND");
        }
    }

    @Test
    @DisplayName("IBTA 9.4.1: a SEND scattered over three receive SGEs and gathered from two send SGEs")
    void scatterGather() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_256, new org.roce4j.verbs.QpCap(8, 8, 2, 3, 0),
                    QpPair.remoteAccess());
            byte[] data = Bytes.pattern(SEED, 700);
            Mr src = a.register(1024);
            Bytes.write(src.segment(), 0, java.util.Arrays.copyOfRange(data, 0, 300));
            Bytes.write(src.segment(), 600, java.util.Arrays.copyOfRange(data, 300, 700));
            Mr dst = b.register(2048);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(new RecvWr().wrId(7).sge(dst, 0, 100).sge(dst, 500, 250).sge(dst, 1000, 500));
            pair.qpA.postSend(new SendWr().wrId(8).opcode(WrOpcode.SEND).sge(src, 0, 300).sge(src, 600, 400)
                    .signaled(true));
            Expect.success(Completions.awaitOne(a.cq), 8, WcOpcode.SEND);
            WorkCompletion recv = Completions.awaitOne(b.cq);
            Expect.success(recv, 7, WcOpcode.RECV);
            assertThat(recv.byteLen()).isEqualTo(700);
            Bytes.assertAt(dst.segment(), 0, java.util.Arrays.copyOfRange(data, 0, 100), "SGE 0");
            Bytes.assertAt(dst.segment(), 500, java.util.Arrays.copyOfRange(data, 100, 350), "SGE 1");
            Bytes.assertAt(dst.segment(), 1000, java.util.Arrays.copyOfRange(data, 350, 700), "SGE 2");
            Bytes.assertUntouched(dst.segment(), 100, 400, "between SGE 0 and 1");
            Bytes.assertUntouched(dst.segment(), 750, 250, "between SGE 1 and 2");
            Bytes.assertUntouched(dst.segment(), 1350, 150, "after the message in SGE 2");
        }
    }

    @Test
    @DisplayName("IBTA 9.4.5: FETCH_AND_ADD wraps modulo 2^64 and carries across the 32-bit halves")
    void fetchAndAddCarries() throws Exception {
        fetchAndAdd(0x0000_0000_FFFF_FFFFL, 1L);
        fetchAndAdd(0xFFFF_FFFF_FFFF_FFFFL, 2L);
        fetchAndAdd(0x0102_0304_0506_0708L, 0x1010_1010_1010_1010L);
    }

    @Test
    @DisplayName("IBTA 9.4.5: CMP_AND_SWP that does not match leaves memory unchanged and returns the original")
    void compareAndSwapMismatch() throws Exception {
        compareAndSwap(false);
    }

    // ---- one operation, checked on both sides

    void send(QpType type, Mtu mtu, WrOpcode opcode, int length) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, type, mtu);
            int grh = type == QpType.UD ? 40 : 0;
            byte[] data = Bytes.pattern(SEED + length, length);
            Mr src = a.register(length + 3);
            Bytes.write(src.segment(), 3, data);
            Mr dst = b.register(grh + length + 64);
            Bytes.canary(dst.segment());
            pair.qpB.postRecv(RecvWr.of(50, dst, 0, grh + length + 32));
            SendWr wr = SendWr.send(60, src, 3, length).opcode(opcode).immData(IMM);
            if (type == QpType.UD) {
                wr.ud(pair.ahToB, pair.qpB.qpNum(), QpPair.QKEY);
            }
            pair.qpA.postSend(wr);
            WorkCompletion sent = Completions.awaitOne(a.cq);
            Expect.success(sent, 60, WcOpcode.SEND);
            assertThat(sent.qpNum()).isEqualTo(pair.qpA.qpNum());
            WorkCompletion recv = Completions.awaitOne(b.cq);
            Expect.success(recv, 50, WcOpcode.RECV);
            assertThat(recv.qpNum()).as("qp_num").isEqualTo(pair.qpB.qpNum());
            assertThat(recv.byteLen()).as("byte_len").isEqualTo(grh + length);
            assertThat(recv.has(WcFlag.WITH_IMM)).as("IBV_WC_WITH_IMM").isEqualTo(opcode == WrOpcode.SEND_WITH_IMM);
            if (opcode == WrOpcode.SEND_WITH_IMM) {
                assertThat(recv.immData()).as("imm_data").isEqualTo(IMM);
            }
            assertThat(recv.has(WcFlag.WITH_INV)).isFalse();
            Bytes.assertAt(dst.segment(), grh, data, opcode + " payload at the responder");
            Bytes.assertUntouched(dst.segment(), grh + length, 64, "after the message");
        }
    }

    void write(QpType type, Mtu mtu, WrOpcode opcode, int length) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, type, mtu);
            byte[] data = Bytes.pattern(SEED ^ length, length);
            Mr src = a.register(length);
            Bytes.write(src.segment(), 0, data);
            Mr target = b.register(length + 16);
            Bytes.canary(target.segment());
            Mr recvBuf = b.register(64);
            Bytes.canary(recvBuf.segment());
            boolean imm = opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
            if (imm) {
                pair.qpB.postRecv(RecvWr.of(70, recvBuf, 0, 64));
            }
            pair.qpA.postSend(SendWr.rdmaWrite(80, src, 0, length, target.address() + 8, target.rkey())
                    .opcode(opcode).immData(IMM));
            Expect.success(Completions.awaitOne(a.cq), 80, WcOpcode.RDMA_WRITE);
            if (imm) {
                // IBTA 9.4.3 / rxe do_complete: a WRITE with immediate consumes a receive WQE, reports
                // RECV_RDMA_WITH_IMM with the written length, and writes nothing into the receive buffer.
                WorkCompletion recv = Completions.awaitOne(b.cq);
                Expect.success(recv, 70, WcOpcode.RECV_RDMA_WITH_IMM);
                assertThat(recv.has(WcFlag.WITH_IMM)).isTrue();
                assertThat(recv.immData()).as("imm_data").isEqualTo(IMM);
                assertThat(recv.byteLen()).as("byte_len of RECV_RDMA_WITH_IMM").isEqualTo(length);
                Bytes.assertUntouched(recvBuf.segment(), 0, 64, "receive buffer of a WRITE with immediate");
            } else {
                assertThat(Completions.drain(b.cq)).as("a plain RDMA WRITE completes nothing at the responder")
                        .isEmpty();
            }
            Bytes.assertUntouched(target.segment(), 0, 8, "before the written range");
            Bytes.assertAt(target.segment(), 8, data, opcode + " at the responder");
            Bytes.assertUntouched(target.segment(), 8 + length, 8, "after the written range");
        }
    }

    void read(Mtu mtu, int length) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, mtu);
            byte[] data = Bytes.pattern(SEED - length, length);
            Mr remote = b.register(length + 8);
            Bytes.write(remote.segment(), 8, data);
            Mr local = a.register(length + 16);
            Bytes.canary(local.segment());
            pair.qpA.postSend(SendWr.rdmaRead(90, local, 8, length, remote.address() + 8, remote.rkey()));
            WorkCompletion wc = Completions.awaitOne(a.cq);
            Expect.success(wc, 90, WcOpcode.RDMA_READ);
            Bytes.assertUntouched(local.segment(), 0, 8, "before the read target");
            Bytes.assertAt(local.segment(), 8, data, "RDMA READ at the requester");
            Bytes.assertUntouched(local.segment(), 8 + length, 8, "after the read target");
            Bytes.assertAt(remote.segment(), 8, data, "the responder's memory is unchanged by a READ");
            assertThat(Completions.drain(b.cq)).as("a READ completes nothing at the responder").isEmpty();
        }
    }

    void fetchAndAdd(long original, long add) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr remote = b.register(32);
            Bytes.u64(remote.segment(), 8, original);   // host order, as the CPU reads it
            Mr local = a.register(32);
            Bytes.canary(local.segment());
            pair.qpA.postSend(SendWr.fetchAndAdd(11, local, 8, remote.address() + 8, remote.rkey(), add));
            Expect.success(Completions.awaitOne(a.cq), 11, WcOpcode.FETCH_ADD);
            assertThat(Bytes.u64(local.segment(), 8)).as("original value returned, host order")
                    .isEqualTo(original);
            assertThat(Bytes.u64(remote.segment(), 8)).as("remote after FETCH_AND_ADD, host order")
                    .isEqualTo(original + add);
            assertThat(Bytes.u64(remote.segment(), 0)).as("neighbour below").isZero();
            assertThat(Bytes.u64(remote.segment(), 16)).as("neighbour above").isZero();
            Bytes.assertUntouched(local.segment(), 0, 8, "before the atomic result");
            Bytes.assertUntouched(local.segment(), 16, 16, "after the atomic result");
        }
    }

    void compareAndSwap(boolean matches) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            long original = 0x1122_3344_5566_7788L;
            long swap = 0xCAFE_F00D_DEAD_BEEFL;
            Mr remote = b.register(16);
            Bytes.u64(remote.segment(), 0, original);
            Mr local = a.register(16);
            Bytes.canary(local.segment());
            long compare = matches ? original : original ^ 1;
            pair.qpA.postSend(SendWr.compareAndSwap(12, local, 0, remote.address(), remote.rkey(), compare, swap));
            Expect.success(Completions.awaitOne(a.cq), 12, WcOpcode.COMP_SWAP);
            assertThat(Bytes.u64(local.segment(), 0)).as("original value returned").isEqualTo(original);
            assertThat(Bytes.u64(remote.segment(), 0)).as("remote after CMP_AND_SWP")
                    .isEqualTo(matches ? swap : original);
            assertThat(Bytes.u64(remote.segment(), 8)).isZero();
        }
    }

    /**
     * IBTA 9.4.4 (SEND with Invalidate): the responder invalidates the R_Key named in the IETH and reports it.
     * This checks the default profile's contract that an ibv_reg_mr region's rkey can be invalidated; rxe
     * refuses it (rxe_invalidate_mr wants IB_MR_TYPE_MEM_REG: departure [6]). Windows are invalidated on every
     * device: MemoryWindowTest.
     */
    void sendWithInvalidate() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr victim = b.register(64);
            Bytes.canary(victim.segment());
            Mr dst = b.register(64);
            pair.qpB.postRecv(RecvWr.of(1, dst, 0, 64));
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(SEED, 64));
            pair.qpA.postSend(SendWr.send(2, src, 0, 16).opcode(WrOpcode.SEND_WITH_INV)
                    .invalidateRkey(victim.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.SEND);
            WorkCompletion recv = Completions.awaitOne(b.cq);
            Expect.success(recv, 1, WcOpcode.RECV);
            assertThat(recv.has(WcFlag.WITH_INV)).as("IBV_WC_WITH_INV").isTrue();
            assertThat(recv.invalidatedRkey()).as("invalidated_rkey").isEqualTo(victim.rkey());
            assertThat(recv.byteLen()).isEqualTo(16);
            Bytes.assertAt(dst.segment(), 0, Bytes.pattern(SEED, 16), "payload of SEND with invalidate");
            // The rkey is now invalid: a WRITE through it is a remote access error and writes nothing.
            pair.qpA.postSend(SendWr.rdmaWrite(3, src, 0, 64, victim.address(), victim.rkey()));
            Expect.status(Completions.awaitOne(a.cq), 3, WcStatus.REM_ACCESS_ERR);
            Bytes.assertUntouched(victim.segment(), 0, 64, "invalidated region");
        }
    }

    /**
     * BIND_MW (IBTA 10.6.7.2.4, rxe_bind_mw): a type 2 window bound by the responder's QP completes BIND_MW,
     * sends nothing, and a WRITE from the peer through its rkey lands in the region. Skipped on a device that
     * does not report type 2B windows.
     */
    void bindMw(QpType type) throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(b.context.queryDevice().deviceCapFlags()
                    .contains(org.roce4j.verbs.DeviceCapFlag.MEM_WINDOW_TYPE_2B), "no MEM_WINDOW_TYPE_2B");
            QpPair pair = QpPair.connect(a, b, type, Mtu.MTU_1024);
            Mr target = b.register(256, java.util.EnumSet.of(org.roce4j.verbs.AccessFlag.LOCAL_WRITE,
                    org.roce4j.verbs.AccessFlag.MW_BIND));
            Bytes.canary(target.segment());
            org.roce4j.verbs.Mw mw = b.track(b.pd.allocMw(org.roce4j.verbs.MwType.TYPE_2));
            int rkey = org.roce4j.verbs.Mw.incRkey(mw.rkey());
            pair.qpB.postSend(SendWr.bindMw(6, mw, rkey, new org.roce4j.verbs.MwBindInfo(target, target.address(), 256,
                    java.util.EnumSet.of(org.roce4j.verbs.AccessFlag.REMOTE_WRITE))));
            Expect.success(Completions.awaitOne(b.cq), 6, WcOpcode.BIND_MW);
            assertThat(Completions.drain(a.cq)).as("BIND_MW sends nothing").isEmpty();
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(SEED, 64));
            pair.qpA.postSend(SendWr.rdmaWrite(7, src, 0, 64, target.address() + 128, rkey));
            Expect.success(Completions.awaitOne(a.cq), 7, WcOpcode.RDMA_WRITE);
            // UC has no acknowledgement: the requester completes the WRITE once it is sent (rxe_comp.c), not when
            // it lands. Wait out the quiet period, as write() does, before reading the bytes.
            assertThat(Completions.drain(b.cq)).as("a plain RDMA WRITE completes nothing at the responder").isEmpty();
            Bytes.assertAt(target.segment(), 128, Bytes.pattern(SEED, 64), "WRITE through the window");
        }
    }

    /** LOCAL_INV (IBTA 10.6.5): completes locally, after which remote peers cannot use the rkey. Same caveat as above. */
    void localInvalidate() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr victim = a.register(64);
            Bytes.canary(victim.segment());
            pair.qpA.postSend(new SendWr().wrId(4).opcode(WrOpcode.LOCAL_INV).invalidateRkey(victim.rkey())
                    .signaled(true));
            Expect.success(Completions.awaitOne(a.cq), 4, WcOpcode.LOCAL_INV);
            assertThat(Completions.drain(b.cq)).as("LOCAL_INV sends nothing").isEmpty();
            Mr src = b.register(64);
            pair.qpB.postSend(SendWr.rdmaWrite(5, src, 0, 64, victim.address(), victim.rkey()));
            Expect.status(Completions.awaitOne(b.cq), 5, WcStatus.REM_ACCESS_ERR);
            Bytes.assertUntouched(victim.segment(), 0, 64, "locally invalidated region");
        }
    }
}
