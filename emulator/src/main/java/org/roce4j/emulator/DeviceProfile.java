package org.roce4j.emulator;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

import org.roce4j.emulator.verbs.DeviceLimits;

/**
 * The devices the emulator models by name: the one place that says how each departs from the default
 * model and what limits it has (DESIGN.md §4). An enum so that annotations can name one
 * ({@code @EmulatedFabric(profile = DeviceProfile.RXE_6_12)}); a device no entry describes is a
 * {@link DeviceModel} of its own.
 *
 * <p>An rxe profile is a twin of Linux Soft-RoCE on one kernel: {@code roce4j conformance} on an
 * emulated device with the profile prints the same line for every test as on {@code rxe0} under that
 * kernel ({@code .ci/run} compares them). Every entry reports and enforces Linux rxe's limits
 * ({@link DeviceLimits#RXE}).
 */
public enum DeviceProfile {
    /**
     * The default: IBTA and the rules every Linux RDMA device follows through libibverbs (the core's
     * modify table, uverbs' checks), with no device's own departures.
     */
    LINUX("linux", EnumSet.noneOf(Quirk.class)),
    /** Linux Soft-RoCE ({@code rdma_rxe}) of kernel 6.1 (Debian 12's), with rdma-core 44. */
    RXE_6_1("rxe-6.1", EnumSet.of(Quirk.RETRY_COUNT_SEVEN_IS_INFINITE,
            Quirk.QUEUE_DEPTH_ROUNDED_TO_POWER_OF_TWO_MINUS_ONE, Quirk.CREATE_QP_REPORTS_REQUESTED_DEPTH,
            Quirk.SEND_SGES_AND_INLINE_SHARE_ONE_WQE_SIZE, Quirk.REREG_MR_NOT_SUPPORTED,
            Quirk.REPORTS_RXE_DEVICE_CAP_FLAGS)),
    /** Linux Soft-RoCE ({@code rdma_rxe}) of kernel 6.12 (Debian's 6.12 series), with rdma-core 44. */
    RXE_6_12("rxe-6.12", EnumSet.of(Quirk.RETRY_COUNT_SEVEN_IS_INFINITE,
            Quirk.QUEUE_DEPTH_ROUNDED_TO_POWER_OF_TWO_MINUS_ONE, Quirk.SEND_SGES_AND_INLINE_SHARE_ONE_WQE_SIZE,
            Quirk.REREG_MR_NOT_SUPPORTED, Quirk.REPORTS_RXE_DEVICE_CAP_FLAGS));

    private final DeviceModel model;

    DeviceProfile(String name, Set<Quirk> quirks) {
        this.model = new DeviceModel(name, DeviceLimits.RXE, quirks);
    }

    /** {@return the device this entry names: its limits and its quirks} */
    public DeviceModel model() {
        return model;
    }

    /** {@return how reports, {@code -d emu:...?profile=} and {@code -Droce4j.emulator.profile} name it} */
    public String id() {
        return model.name();
    }

    /**
     * {@return the profile with this {@link #id()}}
     *
     * @throws IllegalArgumentException naming the known ones, when none has it
     */
    public static DeviceProfile named(String id) {
        for (DeviceProfile profile : values()) {
            if (profile.id().equals(id)) {
                return profile;
            }
        }
        throw new IllegalArgumentException("no device profile '" + id + "' (known: "
                + Arrays.stream(values()).map(DeviceProfile::id).collect(Collectors.joining(", ")) + ")");
    }
}
