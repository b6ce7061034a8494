package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.DeviceCapFlagEx;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendFlag;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.OperationKind;

/**
 * IBTA 1.5 ATOMIC WRITE in the emulator: the packets (RETH + 8 bytes; an RDMA READ Response Only of no payload as
 * its answer, rxe_resp.c send_read_response_ack), a duplicate answered again without a second store, and kernel
 * 6.1's profile, which has no ATOMIC WRITE ({@link Quirk#PREDATES_ATOMIC_WRITE_AND_FLUSH}).
 */
class AtomicWriteTest {
    private static final long VALUE = 0x1122_3344_5566_7788L;

    @Test
    @DisplayName("IBTA 1.5 9.4.7: ATOMIC WRITE is one RC ATOMIC WRITE packet (RETH, 8 bytes) answered by an RDMA "
            + "READ Response Only of no payload; it completes IBV_WC_ATOMIC_WRITE with byte_len 8")
    void atomicWriteOnTheWire() {
        FaultScript script = new FaultScript();
        try (TwoNodes nodes = new TwoNodes()) {
            QpEx qp = connectedEx(nodes);
            nodes.fabric.filter(script);
            post(nodes, qp, nodes.b.mr.address() + 64);
            WorkCompletion wc = nodes.a.pollAll().getFirst();
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.ATOMIC_WRITE);
            assertThat(wc.byteLen()).isEqualTo(8);
            assertThat(nodes.b.memory.get(ValueLayout.JAVA_LONG, 64)).isEqualTo(VALUE);
            assertThat(script.frames()).extracting(f -> f.opcode().kind())
                    .containsExactly(OperationKind.ATOMIC_WRITE, OperationKind.RDMA_READ_RESPONSE);
        }
    }

    @Test
    @DisplayName("IBTA C9-107 / rxe duplicate_request: an ATOMIC WRITE whose response is lost is answered again "
            + "from its saved resource; the responder does not store a second time")
    void duplicateAtomicWriteAnsweredWithoutStoringAgain() {
        FaultScript script = new FaultScript();
        try (TwoNodes nodes = new TwoNodes()) {
            QpEx qp = connectedEx(nodes);
            nodes.fabric.filter(script.dropNth(1, FaultScript.fromB(OperationKind.RDMA_READ_RESPONSE)));
            post(nodes, qp, nodes.b.mr.address() + 64);
            nodes.fabric.runFor(Duration.ofMillis(1)); // delivered and answered; the ACK timeout is far off
            assertThat(nodes.b.memory.get(ValueLayout.JAVA_LONG, 64)).isEqualTo(VALUE);
            // A local writer changes the word after the ATOMIC WRITE landed: a second store would undo it.
            nodes.b.memory.set(ValueLayout.JAVA_LONG, 64, 5);
            WorkCompletion wc = nodes.a.pollAll().getFirst();
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(script.requestPsnsFromA()).containsExactly(100, 100);
            assertThat(nodes.b.memory.get(ValueLayout.JAVA_LONG, 64)).as("not stored again").isEqualTo(5);
            assertThat(nodes.b.context.queryPortCounters(1).get("duplicate_request")).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("Quirk.PREDATES_ATOMIC_WRITE_AND_FLUSH (kernel 6.1): device_cap_flags_ex has no ATOMIC_WRITE; the "
            + "provider still creates the QP, and the ATOMIC WRITE completes LOC_QP_OP_ERR; 6.12 reports "
            + "ATOMIC_WRITE and FLUSH_GLOBAL/PERSISTENT, as the default does")
    void kernel61HasNoAtomicWrite() {
        assertThat(ProfiledDevice.open(DeviceProfile.RXE_6_1).queryDeviceCapFlagsEx()).isEmpty();
        assertThat(ProfiledDevice.open(DeviceProfile.RXE_6_12).queryDeviceCapFlagsEx()).containsExactlyInAnyOrder(
                DeviceCapFlagEx.ATOMIC_WRITE, DeviceCapFlagEx.FLUSH_GLOBAL, DeviceCapFlagEx.FLUSH_PERSISTENT);
        assertThat(ProfiledDevice.open(DeviceProfile.LINUX).queryDeviceCapFlagsEx()).containsExactlyInAnyOrder(
                DeviceCapFlagEx.ATOMIC_WRITE, DeviceCapFlagEx.FLUSH_GLOBAL, DeviceCapFlagEx.FLUSH_PERSISTENT);
        try (TwoNodes nodes = new TwoNodes(Fabric.deterministic(), DeviceProfile.RXE_6_1)) {
            QpEx qp = connectedEx(nodes);
            post(nodes, qp, nodes.b.mr.address() + 64);
            WorkCompletion wc = nodes.a.pollAll().getFirst();
            assertThat(wc.status()).isEqualTo(WcStatus.LOC_QP_OP_ERR);
            assertThat(nodes.b.memory.get(ValueLayout.JAVA_LONG, 64)).isZero();
        }
    }

    static QpEx connectedEx(TwoNodes nodes) {
        Set<SendOpsFlag> ops = EnumSet.of(SendOpsFlag.ATOMIC_WRITE, SendOpsFlag.SEND, SendOpsFlag.RDMA_WRITE);
        QpEx qa = nodes.a.pd.createQpEx(new QpInitAttrEx(QpInitAttr.of(QpType.RC, nodes.a.cq, new QpCap(16, 16, 4, 4, 64)),
                ops));
        var qb = nodes.b.createQp(QpType.RC, 16);
        TwoNodes.connect(qa, qb.qpNum(), nodes.b.gid(), 100, 200, Mtu.MTU_1024);
        TwoNodes.connect(qb, qa.qpNum(), nodes.a.gid(), 200, 100, Mtu.MTU_1024);
        return qa;
    }

    private static void post(TwoNodes nodes, QpEx qp, long remoteAddr) {
        MemorySegment value = Arena.ofAuto().allocate(8, 8);
        value.set(ValueLayout.JAVA_LONG, 0, VALUE);
        qp.wrStart();
        qp.wrId(9);
        qp.wrFlags(SendFlag.SIGNALED.bit());
        qp.wrAtomicWrite(nodes.b.mr.rkey(), remoteAddr, value);
        assertThat(qp.wrComplete()).isZero();
    }
}
