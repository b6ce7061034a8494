package org.roce4j.emulator;

import java.util.Objects;

import org.roce4j.emulator.verbs.DeviceLimits;

/**
 * What an emulated device is, where devices differ: the limits it reports and enforces, and how
 * its behaviour departs from the specification. The named ones are {@link DeviceProfile}'s entries;
 * a test may build its own ({@code DeviceProfile.IBTA.model().withLimits(...)}) and give it to
 * {@link SoftRnic.Builder#profile(DeviceModel)}. Behaviour code asks the model about a rule or a
 * limit, never which device it is (DESIGN.md §4).
 *
 * @param name                      how reports name it ({@code IBTA}, {@code RXE}, …)
 * @param limits                    what {@code ibv_query_device}/{@code ibv_query_port} answer and
 *                                  the verbs enforce
 * @param retryCountSevenIsInfinite whether retry_cnt 7 retries forever (see {@link #retriesForever})
 */
public record DeviceModel(String name, DeviceLimits limits, boolean retryCountSevenIsInfinite) {

    public DeviceModel {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(limits, "limits");
    }

    /**
     * {@return whether a QP whose retry_cnt is {@code retryCnt} goes back forever after timeouts and
     * sequence NAKs, its retries never running out} rnr_retry 7 is infinite on every device (IBTA
     * 9.7.5.2.8); this is retry_cnt.
     */
    public boolean retriesForever(int retryCnt) {
        return retryCnt == 7 && retryCountSevenIsInfinite;
    }

    /** This device with other limits, its departures the same (a test's small device, say). */
    public DeviceModel withLimits(DeviceLimits other) {
        return new DeviceModel(name, other, retryCountSevenIsInfinite);
    }

    @Override
    public String toString() {
        return name;
    }
}
