package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;


import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.DeviceCapFlag;

/** device_cap_flags and num_comp_vectors per profile. */
class DeviceCapabilitiesProfileTest {
    @Test
    @DisplayName("linux profile: device_cap_flags are what the emulator implements; one completion vector")
    void linuxReportsWhatTheEmulatorImplements() {
        try (Context ctx = ProfiledDevice.open(DeviceProfile.LINUX)) {
            assertThat(DeviceCapFlag.bits(ctx.queryDevice().deviceCapFlags())).isEqualTo(
                    DeviceCapFlag.UD_AV_PORT_ENFORCE.bit() | DeviceCapFlag.SYS_IMAGE_GUID.bit()
                            | DeviceCapFlag.RC_RNR_NAK_GEN.bit() | DeviceCapFlag.SRQ_RESIZE.bit()
                            | DeviceCapFlag.MEM_WINDOW.bit() | DeviceCapFlag.MEM_WINDOW_TYPE_2B.bit());
            assertThat(ctx.numCompVectors()).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("rxe profiles: device_cap_flags 0x1223c76, what ibv_query_device reports on rxe0 under 6.1 and 6.12")
    void rxeReportsRxeDeviceCapFlags() {
        for (DeviceProfile profile : new DeviceProfile[] {DeviceProfile.RXE_6_1, DeviceProfile.RXE_6_12}) {
            try (Context ctx = ProfiledDevice.open(profile)) {
                assertThat(DeviceCapFlag.bits(ctx.queryDevice().deviceCapFlags())).as("%s", profile).isEqualTo(0x1223c76);
            }
        }
    }
}
