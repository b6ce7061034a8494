package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** ibv_reg_mr / ibv_dereg_mr: access rules, keys, and what a local key names after deregistration. */
@ExtendWith(Backend.Resolver.class)
class MemoryRegistrationTest {
    private final Backend backend;

    MemoryRegistrationTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA o10-26: REMOTE_WRITE without LOCAL_WRITE is EINVAL")
    void remoteWriteNeedsLocalWrite() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Expect.errno(Errno.EINVAL, () -> e.pd.regMr(e.allocate(64), EnumSet.of(AccessFlag.REMOTE_WRITE)));
            Expect.errno(Errno.EINVAL, () -> e.pd.regMr(e.allocate(64),
                    EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ)));
        }
    }

    @Test
    @DisplayName("ibv_reg_mr: a region without remote rights has an rkey all the same, its lkey (mlx5, rxe since kernel 6.2)")
    void aRegionWithoutRemoteRightsHasItsLkeyAsRkey() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Mr local = e.track(e.pd.regMr(e.allocate(64), EnumSet.of(AccessFlag.LOCAL_WRITE)));
            Expect.outcome("rkey of a region without remote rights", "its lkey",
                    local.rkey() == local.lkey() ? "its lkey" : local.rkey() == 0 ? "0" : "another key");
        }
    }

    @Test
    @DisplayName("IBTA o10-26: REMOTE_ATOMIC without LOCAL_WRITE is EINVAL")
    void remoteAtomicNeedsLocalWrite() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Expect.errno(Errno.EINVAL, () -> e.pd.regMr(e.allocate(64), EnumSet.of(AccessFlag.REMOTE_ATOMIC)));
        }
    }

    @Test
    @DisplayName("ibv_reg_mr_iova: local SGEs and remote peers address the region at its IOVA (the address's page offset kept)")
    void iovaAddressing() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            MemorySegment sourceMemory = a.allocate(256);
            MemorySegment targetMemory = b.allocate(256);
            long sourceIova = 0x4000_0000L + pageOffset(sourceMemory);
            long targetIova = 0x5000_0000L + pageOffset(targetMemory);
            Mr source = a.track(a.pd.regMr(sourceMemory, sourceIova, Endpoint.ALL_ACCESS));
            Mr target = b.track(b.pd.regMr(targetMemory, targetIova, Endpoint.ALL_ACCESS));
            assertThat(source.address()).isEqualTo(sourceIova);
            assertThat(target.address()).isEqualTo(targetIova);
            for (int i = 0; i < 256; i++) {
                sourceMemory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            }
            pair.qpA.postSend(SendWr.rdmaWrite(1, source, 16, 100, target.address() + 50, target.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 1, WcOpcode.RDMA_WRITE);
            assertThat(targetMemory.asSlice(50, 100).mismatch(sourceMemory.asSlice(16, 100))).isEqualTo(-1);
            assertThat(targetMemory.get(ValueLayout.JAVA_BYTE, 49)).isZero();
            assertThat(targetMemory.get(ValueLayout.JAVA_BYTE, 150)).isZero();
        }
    }

    @Test
    @DisplayName("Linux ib_uverbs_reg_mr: an IOVA whose offset within a page differs from the address's is EINVAL")
    void iovaWithAnotherPageOffsetIsEinval() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            MemorySegment memory = e.allocate(256);
            long otherOffset = 0x4000_0000L + ((pageOffset(memory) + 16) & (PAGE_SIZE - 1));
            Expect.errno(Errno.EINVAL, () -> e.pd.regMr(memory, otherOffset, Endpoint.ALL_ACCESS));
        }
    }

    /** The kernel's PAGE_SIZE on x86-64 and arm64, whose offset an IOVA keeps. */
    private static final long PAGE_SIZE = 4096;

    private static long pageOffset(MemorySegment memory) {
        return memory.address() & (PAGE_SIZE - 1);
    }

    @Test
    @DisplayName("ibv_reg_mr_iova: an IOVA range that wraps past 2^64 is EINVAL")
    void iovaWrapIsEinval() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            MemorySegment memory = e.allocate(3 * PAGE_SIZE);
            MemorySegment twoPages = memory.asSlice(PAGE_SIZE - pageOffset(memory), 2 * PAGE_SIZE);
            // Page-aligned like its IOVA, so that only the wrap is wrong.
            Expect.errno(Errno.EINVAL, () -> e.pd.regMr(twoPages, -PAGE_SIZE, Endpoint.ALL_ACCESS));
        }
    }

    @Test
    @DisplayName("IBTA 10.6.3.1: REMOTE_READ alone, LOCAL_WRITE alone and no rights at all are valid")
    void readOnlyRightsAreValid() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            for (Set<AccessFlag> access : List.<Set<AccessFlag>>of(EnumSet.of(AccessFlag.REMOTE_READ),
                    EnumSet.of(AccessFlag.LOCAL_WRITE), EnumSet.noneOf(AccessFlag.class))) {
                Mr mr = e.register(64, access);
                assertThat(mr.access()).isEqualTo(access);
            }
        }
    }

    @Test
    @DisplayName("ibv_reg_mr: an empty segment or Java heap memory is EINVAL (only native memory can be registered)")
    void onlyNativeNonEmptyMemory() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Expect.errno(Errno.EINVAL, () -> e.pd.regMr(e.allocate(64).asSlice(0, 0), Endpoint.ALL_ACCESS));
            Expect.errno(Errno.EINVAL, () -> e.pd.regMr(MemorySegment.ofArray(new byte[64]), Endpoint.ALL_ACCESS));
        }
    }

    @Test
    @DisplayName("ibv_reg_mr: address, length, PD and rights are those registered; keys are unique per region")
    void keysAndAttributes() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Set<Integer> lkeys = new HashSet<>();
            Set<Integer> rkeys = new HashSet<>();
            for (int i = 0; i < 8; i++) {
                MemorySegment memory = e.allocate(100 + i);
                Mr mr = e.track(e.pd.regMr(memory, Endpoint.ALL_ACCESS));
                assertThat(mr.address()).isEqualTo(memory.address());
                assertThat(mr.length()).isEqualTo(100 + i);
                assertThat(mr.pd()).isSameAs(e.pd);
                assertThat(mr.access()).isEqualTo(Endpoint.ALL_ACCESS);
                assertThat(mr.segment().byteSize()).isEqualTo(100 + i);
                lkeys.add(mr.lkey());
                rkeys.add(mr.rkey());
            }
            assertThat(lkeys).as("lkeys").hasSize(8);
            assertThat(rkeys).as("rkeys").hasSize(8);
        }
    }

    @Test
    @DisplayName("ibv_reg_mr: a region registered twice gets two different key pairs")
    void sameMemoryTwice() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            MemorySegment memory = e.allocate(256);
            Mr first = e.track(e.pd.regMr(memory, Endpoint.ALL_ACCESS));
            Mr second = e.track(e.pd.regMr(memory, Endpoint.ALL_ACCESS));
            assertThat(second.lkey()).isNotEqualTo(first.lkey());
            assertThat(second.rkey()).isNotEqualTo(first.rkey());
        }
    }

    @Test
    @DisplayName("IBTA 10.6 L_Key check (rxe copy_data): a send SGE with a deregistered lkey completes with LOC_PROT_ERR")
    void deregisteredLkeyIsLocalProtectionError() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr recv = b.register(64);
            pair.qpB.postRecv(RecvWr.of(1, recv, 0, 64));
            Mr gone = a.pd.regMr(a.allocate(64), Endpoint.ALL_ACCESS);
            long address = gone.address();
            int lkey = gone.lkey();
            gone.close();
            pair.qpA.postSend(new SendWr().wrId(9).sge(address, 64, lkey).signaled(true));
            WorkCompletion wc = Completions.awaitOne(a.cq);
            Expect.status(wc, 9, WcStatus.LOC_PROT_ERR);
            assertThat(Completions.drain(b.cq)).as("nothing was received").isEmpty();
        }
    }

    @Test
    @DisplayName("IBTA 10.6 L_Key check (rxe copy_data): a send SGE beyond the end of its region is LOC_PROT_ERR")
    void sgeOutOfBoundsIsLocalProtectionError() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr recv = b.register(256);
            pair.qpB.postRecv(RecvWr.of(1, recv, 0, 256));
            Mr src = a.register(64);
            pair.qpA.postSend(SendWr.send(3, src, 32, 64));
            Expect.status(Completions.awaitOne(a.cq), 3, WcStatus.LOC_PROT_ERR);
        }
    }

    @Test
    @DisplayName("rxe completer: RDMA READ into a local region without LOCAL_WRITE is LOC_PROT_ERR")
    void readIntoRegionWithoutLocalWrite() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr remote = b.register(64);
            Mr local = a.register(64, EnumSet.of(AccessFlag.REMOTE_READ));
            Bytes.canary(local.segment());
            pair.qpA.postSend(SendWr.rdmaRead(4, local, 0, 64, remote.address(), remote.rkey()));
            Expect.status(Completions.awaitOne(a.cq), 4, WcStatus.LOC_PROT_ERR);
            Bytes.assertUntouched(local.segment(), 0, 64, "read target without LOCAL_WRITE");
        }
    }

    @Test
    @DisplayName("ibv_dereg_mr: a deregistered rkey is refused remotely (REM_ACCESS_ERR), nothing is written")
    void deregisteredRkeyIsRemoteAccessError() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Endpoint.Deregistered gone = b.deregistered();
            Mr src = a.register(64);
            Bytes.write(src.segment(), 0, Bytes.pattern(1, 64));
            pair.qpA.postSend(SendWr.rdmaWrite(5, src, 0, 64, gone.address(), gone.rkey()));
            Expect.status(Completions.awaitOne(a.cq), 5, WcStatus.REM_ACCESS_ERR);
            Bytes.assertUntouched(gone.memory(), 0, 64, "deregistered region");
        }
    }
}
