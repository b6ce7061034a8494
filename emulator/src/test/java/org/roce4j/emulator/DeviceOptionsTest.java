package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A device spec's options ({@code emu:ADDR?profile=...&cap_net_raw=1}). */
class DeviceOptionsTest {
    @Test
    @DisplayName("no options: the linux profile, an unprivileged process")
    void emptyQueryIsTheDefault() {
        assertThat(DeviceOptions.parse("")).isEqualTo(DeviceOptions.DEFAULT);
        assertThat(DeviceOptions.DEFAULT.profile()).isEqualTo(DeviceProfile.LINUX);
        assertThat(DeviceOptions.DEFAULT.capNetRaw()).isFalse();
    }

    @Test
    @DisplayName("profile=ID names a profile by its id, cap_net_raw=1 grants the capability, in any order")
    void profileAndCapability() {
        assertThat(DeviceOptions.parse("profile=rxe-6.1")).isEqualTo(new DeviceOptions(DeviceProfile.RXE_6_1, false));
        assertThat(DeviceOptions.parse("cap_net_raw=1&profile=rxe-6.12"))
                .isEqualTo(new DeviceOptions(DeviceProfile.RXE_6_12, true));
        assertThat(DeviceOptions.parse("profile=linux&cap_net_raw=0")).isEqualTo(DeviceOptions.DEFAULT);
    }

    @Test
    @DisplayName("an unknown profile, key or flag value is refused, naming what is known")
    void badOptionsAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> DeviceOptions.parse("profile=mlx5"))
                .withMessage("no device profile 'mlx5' (known: linux, rxe-6.1, rxe-6.12)");
        assertThatIllegalArgumentException().isThrownBy(() -> DeviceOptions.parse("mtu=4096"))
                .withMessageContaining("unknown device option 'mtu'");
        assertThatIllegalArgumentException().isThrownBy(() -> DeviceOptions.parse("cap_net_raw=maybe"))
                .withMessageContaining("expected 1 or 0");
        assertThatIllegalArgumentException().isThrownBy(() -> DeviceOptions.parse("profile"))
                .withMessageContaining("is not KEY=VALUE");
    }

    @Test
    @DisplayName("the options reach the node built with them")
    void appliedToABuilder() {
        var fabric = org.roce4j.emulator.fabric.Fabric.deterministic();
        SoftRnic rnic = new DeviceOptions(DeviceProfile.RXE_6_1, true).applyTo(SoftRnic.builder(fabric)).name("rxe0")
                .mac(org.roce4j.wire.MacAddress.parse("02:00:00:00:00:01"))
                .ipv4((java.net.Inet4Address) java.net.InetAddress.ofLiteral("10.0.0.1")).attach();
        assertThat(rnic.model()).isSameAs(DeviceProfile.RXE_6_1.model());
    }
}
