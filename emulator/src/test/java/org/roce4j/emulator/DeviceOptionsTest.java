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
        assertThat(DeviceOptions.parse("gso=1&profile=rxe-6.12"))
                .isEqualTo(new DeviceOptions(DeviceProfile.RXE_6_12, false, true, ReceivePolling.OFF));
        assertThat(DeviceOptions.parse("gso=0")).isEqualTo(DeviceOptions.DEFAULT);
        assertThat(DeviceOptions.parse("rxpoll=app&gso=1").receivePolling()).isEqualTo(ReceivePolling.APPLICATION);
        assertThat(DeviceOptions.parse("rxpoll=spin").receivePolling()).isEqualTo(ReceivePolling.SPIN);
        assertThat(DeviceOptions.parse("rxpoll=off")).isEqualTo(DeviceOptions.DEFAULT);
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
        assertThatIllegalArgumentException().isThrownBy(() -> DeviceOptions.parse("rxpoll=always"))
                .withMessage("rxpoll=always: expected off, app or spin");
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

    @Test
    @DisplayName("the in-process provider's options come from -Droce4j.emulator.profile and -Droce4j.emulator.capNetRaw")
    void fromSystemProperties() {
        String profile = System.getProperty(DeviceOptions.PROFILE_PROPERTY);
        String capNetRaw = System.getProperty(DeviceOptions.CAP_NET_RAW_PROPERTY);
        try {
            System.clearProperty(DeviceOptions.PROFILE_PROPERTY);
            System.clearProperty(DeviceOptions.CAP_NET_RAW_PROPERTY);
            assertThat(DeviceOptions.fromSystemProperties()).isEqualTo(DeviceOptions.DEFAULT);
            System.setProperty(DeviceOptions.PROFILE_PROPERTY, " rxe-6.12 ");
            assertThat(DeviceOptions.fromSystemProperties()).isEqualTo(new DeviceOptions(DeviceProfile.RXE_6_12, false));
            System.setProperty(DeviceOptions.CAP_NET_RAW_PROPERTY, "true");
            assertThat(DeviceOptions.fromSystemProperties()).isEqualTo(new DeviceOptions(DeviceProfile.RXE_6_12, true));
            System.setProperty(DeviceOptions.PROFILE_PROPERTY, "mlx5");
            assertThatIllegalArgumentException().isThrownBy(DeviceOptions::fromSystemProperties)
                    .withMessageContaining("no device profile 'mlx5'");
        } finally {
            restore(DeviceOptions.PROFILE_PROPERTY, profile);
            restore(DeviceOptions.CAP_NET_RAW_PROPERTY, capNetRaw);
        }
    }

    @Test
    @DisplayName("an option with an empty key is an unknown option; a model prints as its profile's id")
    void emptyKeyAndModelName() {
        assertThatIllegalArgumentException().isThrownBy(() -> DeviceOptions.parse("=rxe-6.1"))
                .withMessageContaining("unknown device option ''");
        assertThat(DeviceProfile.RXE_6_1.model()).hasToString("rxe-6.1");
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
