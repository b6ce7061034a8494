package org.roce4j.emulator.verbs;

import java.util.EnumSet;
import java.util.Set;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.DeviceCapFlagEx;

/** What {@code ibv_query_device_ex} says in {@code device_cap_flags_ex}: the capabilities above bit 31. */
public final class DeviceCapabilitiesEx {
    /** What the emulator implements: ATOMIC WRITE (its requester and responder; FLUSH is not modelled). */
    static final Set<DeviceCapFlagEx> IMPLEMENTED = EnumSet.of(DeviceCapFlagEx.ATOMIC_WRITE);
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
}
