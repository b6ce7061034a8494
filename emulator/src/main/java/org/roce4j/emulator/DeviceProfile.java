package org.roce4j.emulator;

import org.roce4j.emulator.verbs.DeviceLimits;

/**
 * The devices the emulator models by name: the one place that decides how a modelled device
 * departs from the default and what limits it has (DESIGN.md §4). Issue 15 adds a device (say an
 * mlx5-like one) as one more entry here, with its own {@link DeviceLimits} and departures. An enum so
 * that annotations can name one ({@code @EmulatedFabric(profile = DeviceProfile.RXE)}); a device
 * no entry describes is a {@link DeviceModel} of its own.
 *
 * <p>Both entries report and enforce Linux rxe's limits ({@link DeviceLimits#RXE}).
 */
public enum DeviceProfile {
    /** The specification, and the default: retry_cnt 7 means seven retries (IBTA 9.7.6.1.3, C9-141). */
    IBTA(new DeviceModel("IBTA", DeviceLimits.RXE, false)),
    /**
     * Linux Soft-RoCE ({@code rdma_rxe}): retry_cnt 7 retries forever, as {@code rxe_comp.c}
     * {@code rxe_completer} does ({@code if (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--}).
     */
    RXE(new DeviceModel("RXE", DeviceLimits.RXE, true));

    private final DeviceModel model;

    DeviceProfile(DeviceModel model) {
        this.model = model;
    }

    /** {@return the device this entry names: its limits and its departures} */
    public DeviceModel model() {
        return model;
    }
}
