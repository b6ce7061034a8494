package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.VerbsException;

/**
 * rdma_init_qp_attr and rdma_establish through librdmacm without a device: the attributes come back
 * as the mask names them, in ibv_modify_qp's {@code ibv_qp_attr} layout, and librdmacm's errno is the
 * exception's. With a device they run in conformance on rxe0.
 */
class RdmacmInitQpAttrTest {
    private static final Set<QpAttrMask> RTR = EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV, QpAttrMask.PATH_MTU,
            QpAttrMask.DEST_QPN, QpAttrMask.RQ_PSN, QpAttrMask.MAX_DEST_RD_ATOMIC, QpAttrMask.MIN_RNR_TIMER);

    private static LibRdmacm librdmacm() {
        CmRuntime.Loaded loaded = CmRuntime.load(LibRdmacm.DEFAULT_LIBRARY, Discovery.discover(LibIbverbs.DEFAULT_LIBRARY));
        RequiredInCi.require(loaded.runtime() != null, "librdmacm.so.1 is not installed: " + loaded.whyNot());
        return loaded.runtime().cm;
    }

    @Test
    void theFieldsTheMaskNamesAreReadFromTheIbvQpAttrAndNoOthers() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(Layouts.IBV_QP_ATTR);
            AhAttr path = new AhAttr(Gid.of(new byte[] {(byte) 0xfe, (byte) 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}),
                    1, 0, 64, 0, 0, 1);
            // Values the attributes' writer (ibv_modify_qp's) puts in the struct, as the kernel fills it.
            IbvQp.write(a, new QpAttr().qpState(QpState.RTR).ahAttr(path).pathMtu(Mtu.MTU_1024)
                    .destQpNum(0x11).rqPsn(0xabcdef).maxDestRdAtomic(1).minRnrTimer(0).sqPsn(0x123456).timeout(19));
            QpAttr read = IbvQp.read(a, RTR);
            assertThat(read.mask()).isEqualTo(RTR);
            assertThat(read.qpState()).isEqualTo(QpState.RTR);
            assertThat(read.ahAttr()).isEqualTo(path);
            assertThat(read.pathMtu()).isEqualTo(Mtu.MTU_1024);
            assertThat(read.destQpNum()).isEqualTo(0x11);
            assertThat(read.rqPsn()).isEqualTo(0xabcdef);
            assertThat(read.maxDestRdAtomic()).isEqualTo(1);
            assertThat(read.sqPsn()).as("SQ_PSN is not in the mask").isZero();
        }
    }

    /** librdmacm rdma_establish: {@code if (id->qp) return ERR(EINVAL);} — before it writes to the kernel. */
    @Test
    void rdmaEstablishOnAnIdWithAQpIsLibrdmacmsEinval() {
        LibRdmacm cm = librdmacm();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment id = arena.allocate(4096, 16);
            id.set(ADDRESS, Layouts.offset(RdmacmLayouts.RDMA_CM_ID, "qp"), arena.allocate(64));
            VerbsException refused = catchThrowableOfType(VerbsException.class,
                    () -> LibIbverbs.status("rdma_establish", cm.establish, id));
            assertThat(refused.errno()).isEqualTo(Errno.EINVAL);
        }
    }

    /**
     * librdmacm rdma_init_qp_attr writes the request to {@code id->channel->fd}; on a channel whose fd is
     * -1 the write's errno (EBADF) is what comes back — the call and its errno pass through.
     */
    @Test
    void rdmaInitQpAttrPassesLibrdmacmsErrnoThrough() {
        LibRdmacm cm = librdmacm();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment channel = arena.allocate(RdmacmLayouts.RDMA_EVENT_CHANNEL);
            channel.set(JAVA_INT, 0, -1);
            MemorySegment id = arena.allocate(4096, 16);   // a zeroed cma_id_private around the rdma_cm_id
            id.set(ADDRESS, Layouts.offset(RdmacmLayouts.RDMA_CM_ID, "channel"), channel);
            VerbsException refused = catchThrowableOfType(VerbsException.class,
                    () -> IbvCmId.initQpAttr(cm, id, QpState.RTR));
            // EBADF (9) has no constant in Errno (it reads as EIO); the message keeps the number.
            assertThat(refused.getMessage()).endsWith("rdma_init_qp_attr failed (errno 9)");
        }
    }
}
