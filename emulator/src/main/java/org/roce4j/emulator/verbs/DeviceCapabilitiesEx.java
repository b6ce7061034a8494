package org.roce4j.emulator.verbs;

import java.util.EnumSet;
import java.util.Set;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.DeviceCapFlagEx;
import org.roce4j.verbs.WrOpcode;

/** What {@code ibv_query_device_ex} says in {@code device_cap_flags_ex}: the capabilities above bit 31. */
public final class DeviceCapabilitiesEx {
    /**
     * What the emulator implements: ATOMIC WRITE and FLUSH of both placement types (its requester and responder).
     * Its memory is the JVM's, never persistent memory, so a region with FLUSH_PERSISTENT cannot be registered
     * ({@link #flushAccessProblem}), as on rxe over ordinary RAM; rxe reports the flag all the same.
     */
    static final Set<DeviceCapFlagEx> IMPLEMENTED = EnumSet.of(DeviceCapFlagEx.FLUSH_GLOBAL,
            DeviceCapFlagEx.FLUSH_PERSISTENT, DeviceCapFlagEx.ATOMIC_WRITE);
    /**
     * rxe_param.h RXE_DEVICE_CAP_FLAGS of kernel 6.2 and later (64-bit): FLUSH_GLOBAL, FLUSH_PERSISTENT and
     * ATOMIC_WRITE, the bits {@code ibv_query_device}'s 32-bit word drops.
     */
    static final Set<DeviceCapFlagEx> RXE = EnumSet.of(DeviceCapFlagEx.FLUSH_GLOBAL, DeviceCapFlagEx.FLUSH_PERSISTENT,
            DeviceCapFlagEx.ATOMIC_WRITE);

    private DeviceCapabilitiesEx() {
    }

    /** {@return the device_cap_flags_ex the device reports} */
    public static Set<DeviceCapFlagEx> of(DeviceModel model) {
        if (model.has(Quirk.PREDATES_ATOMIC_WRITE_AND_FLUSH)) {
            return Set.of();
        }
        return model.has(Quirk.REPORTS_RXE_DEVICE_CAP_FLAGS) ? RXE : IMPLEMENTED;
    }

    /** {@return whether the device executes ATOMIC WRITE: what it reports (one copy of the rule)} */
    public static boolean atomicWrite(DeviceModel model) {
        return of(model).contains(DeviceCapFlagEx.ATOMIC_WRITE);
    }

    /**
     * {@return whether the requester has an RC opcode for {@code opcode}}: a kernel without ATOMIC WRITE and FLUSH
     * has none for them (rxe_req.c next_opcode_rc of 6.1), whatever the library built.
     */
    public static boolean executes(DeviceModel model, WrOpcode opcode) {
        return switch (opcode) {
            case ATOMIC_WRITE -> atomicWrite(model);
            case FLUSH -> of(model).contains(DeviceCapFlagEx.FLUSH_GLOBAL)
                    || of(model).contains(DeviceCapFlagEx.FLUSH_PERSISTENT);
            default -> true;
        };
    }

    /**
     * Why a registration's FLUSH rights are refused (EINVAL), or null. A kernel that predates FLUSH knows neither
     * bit: {@code ib_check_mr_access} refuses {@code flags & ~IB_ACCESS_SUPPORTED} with EINVAL. Every later rxe
     * refuses FLUSH_PERSISTENT over memory that is not persistent memory (rxe_mr.c rxe_mr_fill_pages_from_sgt:
     * {@code persistent && !is_pmem_page(page)} is EINVAL); the emulator's memory never is.
     */
    static String flushAccessProblem(DeviceModel model, Set<AccessFlag> access) {
        boolean global = access.contains(AccessFlag.FLUSH_GLOBAL);
        boolean persistent = access.contains(AccessFlag.FLUSH_PERSISTENT);
        if ((global || persistent) && model.has(Quirk.PREDATES_ATOMIC_WRITE_AND_FLUSH)) {
            return "this kernel knows no IBV_ACCESS_FLUSH_* bit (ib_check_mr_access: flags & ~IB_ACCESS_SUPPORTED)";
        }
        if (persistent) {
            return "IBV_ACCESS_FLUSH_PERSISTENT needs persistent memory, and this memory is not (rxe_mr.c: a page "
                    + "that is not pmem)";
        }
        return null;
    }
}
