package org.roce4j.emulator.verbs;

import java.util.EnumSet;
import java.util.Set;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendOpsFlag;
import org.roce4j.verbs.VerbsException;

/**
 * Which {@code ibv_wr_*} operations an extended QP of each type may be created for: rdma-core 44's rxe
 * provider ({@code RXE_SUP_RC_QP_SEND_OPS_FLAGS} and its UC and UD siblings in providers/rxe/rxe.c
 * check_qp_init_attr), which refuses anything else with EOPNOTSUPP before the kernel is asked. The
 * provider checks the flags, not the kernel: on kernel 6.1, which has no ATOMIC WRITE, it still accepts
 * IBV_QP_EX_WITH_ATOMIC_WRITE; whether a device can do it is {@code IB_UVERBS_DEVICE_ATOMIC_WRITE} in its
 * {@code device_cap_flags_ex}. UC takes SEND_WITH_INV here although IBTA has no UC opcode for it: posted,
 * it fails LOC_QP_OP_ERR like any operation the QP type does not allow.
 */
final class SendOpsSupport {
    private static final Set<SendOpsFlag> RC = EnumSet.of(SendOpsFlag.RDMA_WRITE, SendOpsFlag.RDMA_WRITE_WITH_IMM,
            SendOpsFlag.SEND, SendOpsFlag.SEND_WITH_IMM, SendOpsFlag.RDMA_READ, SendOpsFlag.ATOMIC_CMP_AND_SWP,
            SendOpsFlag.ATOMIC_FETCH_AND_ADD, SendOpsFlag.LOCAL_INV, SendOpsFlag.BIND_MW, SendOpsFlag.SEND_WITH_INV,
            SendOpsFlag.ATOMIC_WRITE, SendOpsFlag.FLUSH);
    private static final Set<SendOpsFlag> RC_WITHOUT_FLUSH = EnumSet.copyOf(RC);

    static {
        RC_WITHOUT_FLUSH.remove(SendOpsFlag.FLUSH);
    }

    private static final Set<SendOpsFlag> UC = EnumSet.of(SendOpsFlag.RDMA_WRITE, SendOpsFlag.RDMA_WRITE_WITH_IMM,
            SendOpsFlag.SEND, SendOpsFlag.SEND_WITH_IMM, SendOpsFlag.BIND_MW, SendOpsFlag.SEND_WITH_INV);
    private static final Set<SendOpsFlag> UD = EnumSet.of(SendOpsFlag.SEND, SendOpsFlag.SEND_WITH_IMM);

    private SendOpsSupport() {
    }

    /** EOPNOTSUPP unless every operation asked is one the provider builds for this QP type. */
    static void check(DeviceModel model, QpType type, Set<SendOpsFlag> asked) {
        Set<SendOpsFlag> supported = switch (type) {
            // rdma-core 45 added IBV_QP_EX_WITH_FLUSH to RXE_SUP_RC_QP_SEND_OPS_FLAGS (with wr_flush); 44 refuses it.
            case RC -> model.has(Quirk.PROVIDER_HAS_NO_WR_FLUSH) ? RC_WITHOUT_FLUSH : RC;
            case UC -> UC;
            case UD -> UD;
        };
        if (!supported.containsAll(asked)) {
            Set<SendOpsFlag> refused = EnumSet.copyOf(asked);
            refused.removeAll(supported);
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_create_qp_ex: the " + type + " QP cannot be created "
                    + "with send_ops_flags " + refused + " (rxe: check_qp_init_attr)");
        }
    }
}
