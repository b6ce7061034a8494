package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.ReregFlag;
import org.roce4j.verbs.ReregMrException;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;

/**
 * {@code ibv_rereg_mr}: after a reregistration the region's new memory, PD and rights work through its
 * keys and the old ones no longer do (IBTA 10.6.3: the R_Key and L_Key checks use the region as it is now);
 * the errors libibverbs ({@code IBV_REREG_MR_ERR_INPUT}) and the kernel's {@code ib_uverbs_rereg_mr}
 * ({@code IBV_REREG_MR_ERR_CMD}) give. A device that cannot reregister fails every call CMD/EOPNOTSUPP.
 */
@ExtendWith(Backend.Resolver.class)
class MemoryReregistrationTest {
    private static final Set<AccessFlag> LOCAL_ONLY = EnumSet.of(AccessFlag.LOCAL_WRITE);
    private final Backend backend;

    MemoryReregistrationTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("ibv_rereg_mr CHANGE_ACCESS: the new rights work through the rkey, the old ones no longer do (REM_ACCESS_ERR)")
    void changeAccess() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair pair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr local = a.register(64);
            Mr remote = b.register(64, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
            Bytes.canary(remote.segment());
            Set<AccessFlag> readOnly = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ);
            Expect.succeeds("ibv_rereg_mr CHANGE_ACCESS",
                    () -> remote.rereg(EnumSet.of(ReregFlag.CHANGE_ACCESS), null, null, readOnly));
            assertThat(remote.access()).isEqualTo(readOnly);
            pair.qpA.postSend(SendWr.rdmaRead(1, local, 0, 64, remote.address(), remote.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 1, WcOpcode.RDMA_READ);
            pair.qpA.postSend(SendWr.rdmaWrite(2, local, 0, 8, remote.address(), remote.rkey()));
            Expect.status(Completions.awaitOne(a.cq), 2, WcStatus.REM_ACCESS_ERR);
            Bytes.assertUntouched(remote.segment(), 0, 64, "the region after the refused WRITE");
        }
    }

    @Test
    @DisplayName("ibv_rereg_mr CHANGE_PD (IBTA 10.2.3): the region serves QPs of its new PD only, remotely and locally")
    void changePd() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            Pd otherB = b.track(b.context.allocPd());
            Pd otherA = a.track(a.context.allocPd());
            QpPair remotePair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            QpPair localPair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr local = a.register(64);
            Mr target = b.register(64);
            Mr remote = b.track(otherB.regMr(b.allocate(64), Endpoint.ALL_ACCESS));
            Mr source = a.track(otherA.regMr(a.allocate(64), Endpoint.ALL_ACCESS));
            Expect.succeeds("ibv_rereg_mr CHANGE_PD", () -> {
                remote.rereg(EnumSet.of(ReregFlag.CHANGE_PD), b.pd, null, Set.of());
                source.rereg(EnumSet.of(ReregFlag.CHANGE_PD), a.pd, null, Set.of());
            });
            assertThat(remote.pd()).isSameAs(b.pd);
            remotePair.qpA.postSend(SendWr.rdmaWrite(1, local, 0, 8, remote.address(), remote.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 1, WcOpcode.RDMA_WRITE);
            localPair.qpA.postSend(SendWr.rdmaWrite(2, source, 0, 8, target.address(), target.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.RDMA_WRITE);

            Expect.succeeds("ibv_rereg_mr CHANGE_PD back", () -> {
                remote.rereg(EnumSet.of(ReregFlag.CHANGE_PD), otherB, null, Set.of());
                source.rereg(EnumSet.of(ReregFlag.CHANGE_PD), otherA, null, Set.of());
            });
            remotePair.qpA.postSend(SendWr.rdmaWrite(3, local, 0, 8, remote.address(), remote.rkey()));
            Expect.status(Completions.awaitOne(a.cq), 3, WcStatus.REM_ACCESS_ERR);
            localPair.qpA.postSend(SendWr.rdmaWrite(4, source, 0, 8, target.address(), target.rkey()));
            Expect.status(Completions.awaitOne(a.cq), 4, WcStatus.LOC_PROT_ERR);
        }
    }

    @Test
    @DisplayName("ibv_rereg_mr CHANGE_TRANSLATION: the keys address the new memory at its own address; the old range fails remotely (REM_ACCESS_ERR) and locally (LOC_PROT_ERR)")
    void changeTranslation() throws Exception {
        try (Endpoint a = Endpoint.first(backend); Endpoint b = Endpoint.second(backend)) {
            QpPair remotePair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            QpPair localPair = QpPair.connect(a, b, QpType.RC, Mtu.MTU_1024);
            Mr local = a.register(64);
            Bytes.write(local.segment(), 0, Bytes.pattern(7, 64));
            Mr remote = b.register(64);
            long oldRemote = remote.address();
            MemorySegment newRemote = b.allocate(64);
            Mr source = a.register(64);
            long oldSource = source.address();
            MemorySegment newSource = a.allocate(64);
            Bytes.write(newSource, 0, Bytes.pattern(9, 64));
            Expect.succeeds("ibv_rereg_mr CHANGE_TRANSLATION", () -> {
                remote.rereg(EnumSet.of(ReregFlag.CHANGE_TRANSLATION), null, newRemote, Set.of());
                source.rereg(EnumSet.of(ReregFlag.CHANGE_TRANSLATION), null, newSource, Set.of());
            });
            assertThat(remote.address()).isEqualTo(newRemote.address());
            assertThat(remote.length()).isEqualTo(64);
            remotePair.qpA.postSend(SendWr.rdmaWrite(1, local, 0, 64, remote.address(), remote.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 1, WcOpcode.RDMA_WRITE);
            assertThat(Bytes.read(newRemote, 0, 64)).isEqualTo(Bytes.pattern(7, 64));
            localPair.qpA.postSend(SendWr.rdmaWrite(2, source, 0, 64, remote.address(), remote.rkey()));
            Expect.success(Completions.awaitOne(a.cq), 2, WcOpcode.RDMA_WRITE);
            assertThat(Bytes.read(newRemote, 0, 64)).as("written from the new source").isEqualTo(Bytes.pattern(9, 64));

            remotePair.qpA.postSend(SendWr.rdmaWrite(3, local, 0, 8, oldRemote, remote.rkey()));
            Expect.status(Completions.awaitOne(a.cq), 3, WcStatus.REM_ACCESS_ERR);
            localPair.qpA.postSend(new SendWr().wrId(4).opcode(org.roce4j.verbs.WrOpcode.RDMA_WRITE).signaled(true)
                    .sge(oldSource, 8, source.lkey()).remote(remote.address(), remote.rkey()));
            Expect.status(Completions.awaitOne(a.cq), 4, WcStatus.LOC_PROT_ERR);
        }
    }

    @Test
    @DisplayName("libibverbs ibv_rereg_mr: CHANGE_TRANSLATION without memory, or rights without CHANGE_ACCESS, is IBV_REREG_MR_ERR_INPUT with EINVAL")
    void inputErrorsAreErrInput() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Mr mr = e.register(64, LOCAL_ONLY);
            expectRereg("ibv_rereg_mr CHANGE_TRANSLATION without memory", ReregMrException.ErrorCode.INPUT, Errno.EINVAL,
                    () -> mr.rereg(EnumSet.of(ReregFlag.CHANGE_TRANSLATION), null, null, Set.of()));
            expectRereg("ibv_rereg_mr rights without CHANGE_ACCESS", ReregMrException.ErrorCode.INPUT, Errno.EINVAL,
                    () -> mr.rereg(EnumSet.of(ReregFlag.CHANGE_PD), e.pd, null, Endpoint.ALL_ACCESS));
            assertThat(mr.access()).isEqualTo(LOCAL_ONLY);
        }
    }

    @Test
    @DisplayName("uverbs ib_uverbs_rereg_mr: no flag, or REMOTE_WRITE without LOCAL_WRITE (IBTA o10-26), is IBV_REREG_MR_ERR_CMD with EINVAL; the region is unchanged")
    void kernelRefusalsAreErrCmd() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Mr mr = e.register(64, LOCAL_ONLY);
            int lkey = mr.lkey();
            expectRereg("ibv_rereg_mr with no flag", ReregMrException.ErrorCode.CMD, Errno.EINVAL,
                    () -> mr.rereg(EnumSet.noneOf(ReregFlag.class), null, null, Set.of()));
            expectRereg("ibv_rereg_mr CHANGE_ACCESS to REMOTE_WRITE alone", ReregMrException.ErrorCode.CMD,
                    Errno.EINVAL, () -> mr.rereg(EnumSet.of(ReregFlag.CHANGE_ACCESS), null, null,
                            EnumSet.of(AccessFlag.REMOTE_WRITE)));
            assertThat(mr.access()).isEqualTo(LOCAL_ONLY);
            assertThat(mr.lkey()).isEqualTo(lkey);
        }
    }

    /** The call fails with this errno and {@code ibv_rereg_mr} return code, reported as "CHECK: ERRNO CODE". */
    private static void expectRereg(String check, ReregMrException.ErrorCode code, Errno errno, Expect.Call call) {
        VerbsException e = Expect.errno(check, errno, call);
        assertThat(e).isInstanceOf(ReregMrException.class);
        Expect.outcome(check + " (return code)", code, ((ReregMrException) e).code());
    }
}
