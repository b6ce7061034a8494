package org.roce4j.emulator;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

import org.roce4j.emulator.verbs.DeviceLimits;

/**
 * What an emulated device is, where devices differ: the limits it reports and enforces, and the
 * {@link Quirk}s by which its behaviour departs from the default model. The named ones are
 * {@link DeviceProfile}'s entries; a test may build its own
 * ({@code DeviceProfile.LINUX.model().withLimits(...)}) and give it to
 * {@link SoftRnic.Builder#profile(DeviceModel)}. Behaviour code asks the model about a rule or a
 * limit, never which device it is (DESIGN.md §4).
 *
 * @param name   how reports and {@code -d emu:...?profile=} name it ({@code linux}, {@code rxe-6.1}, …)
 * @param limits what {@code ibv_query_device}/{@code ibv_query_port} answer and the verbs enforce
 * @param quirks how it departs from the default model (none for {@code linux})
 */
public record DeviceModel(String name, DeviceLimits limits, Set<Quirk> quirks) {

    public DeviceModel {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(limits, "limits");
        quirks = quirks.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(quirks));
    }

    /** {@return whether this device departs from the default model in this way} */
    public boolean has(Quirk quirk) {
        return quirks.contains(quirk);
    }

    /**
     * {@return whether a QP whose retry_cnt is {@code retryCnt} goes back forever after timeouts and
     * sequence NAKs, its retries never running out} rnr_retry 7 is infinite on every device (IBTA
     * 9.7.5.2.8); this is retry_cnt ({@link Quirk#RETRY_COUNT_SEVEN_IS_INFINITE}).
     */
    public boolean retriesForever(int retryCnt) {
        return retryCnt == 7 && has(Quirk.RETRY_COUNT_SEVEN_IS_INFINITE);
    }

    /** This device with other limits, its quirks the same (a test's small device, say). */
    public DeviceModel withLimits(DeviceLimits other) {
        return new DeviceModel(name, other, quirks);
    }

    /**
     * This device without one of its departures, named for it ({@code rxe-6.12 without PROVIDER_HAS_NO_WR_FLUSH}):
     * the same kernel under a newer library, say.
     */
    public DeviceModel without(Quirk quirk) {
        EnumSet<Quirk> fewer = quirks.isEmpty() ? EnumSet.noneOf(Quirk.class) : EnumSet.copyOf(quirks);
        fewer.remove(quirk);
        return new DeviceModel(name + " without " + quirk, limits, fewer);
    }

    @Override
    public String toString() {
        return name;
    }
}
