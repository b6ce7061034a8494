package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.wire.MacAddress;

/**
 * {@code roce4j devinfo -v} of an emulated device with an rxe profile against {@code ibv_devinfo -v -d rxe0}
 * as rdma-core 44 printed it in the project's VM on that kernel (the resources {@code rxe-*-ibv_devinfo.txt};
 * {@code conformance/devinfo-twin-check} compares them again on every VM run). The emulated device gets the
 * VM's MAC and address, so its GUIDs and GIDs are the VM's too.
 */
class DevinfoProfileTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(names = {"RXE_6_1", "RXE_6_12"})
    @DisplayName("ibv_devinfo -v on rxe0: every line roce4j devinfo -v prints for the profile is the real device's, in its order (num_comp_vectors aside)")
    void everyPrintedLineIsTheRealDevicesInItsOrder(DeviceProfile profile) {
        List<String> printed = devinfoOfAnEmulatedRxe0(profile);
        List<String> real = reference(profile.id());

        assertThat(printed).contains("\tnum_comp_vectors:\t\t1", "\tdevice_cap_flags:\t\t0x01223c76",
                "\t\t\t\t\tMEM_WINDOW_TYPE_2B", "\t\t\tactive_speed:\t\t2.5 Gbps (1)");
        assertThat(firstNotFoundInOrder(printed, real)).as("the first line of roce4j's that ibv_devinfo does not show there")
                .isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(names = {"RXE_6_1", "RXE_6_12"})
    @DisplayName("the comparison tells the kernels apart: a profile's output is not the other kernel's rxe0 (max_msg_sz)")
    void theOtherKernelsDeviceDiffers(DeviceProfile profile) {
        String other = profile == DeviceProfile.RXE_6_1 ? "rxe-6.12" : "rxe-6.1";

        assertThat(firstNotFoundInOrder(devinfoOfAnEmulatedRxe0(profile), reference(other)))
                .hasValueSatisfying(line -> assertThat(line).startsWith("\t\t\tmax_msg_sz:"));
    }

    /** The first line of {@code printed} (num_comp_vectors skipped: rxe has one per CPU) not found after the previous one's match. */
    private static Optional<String> firstNotFoundInOrder(List<String> printed, List<String> real) {
        int at = 0;
        for (String line : printed) {
            if (line.isBlank() || line.startsWith("\tnum_comp_vectors:")) {
                continue;
            }
            int found = real.subList(at, real.size()).indexOf(line);
            if (found < 0) {
                return Optional.of(line);
            }
            at += found + 1;
        }
        return Optional.empty();
    }

    private static List<String> devinfoOfAnEmulatedRxe0(DeviceProfile profile) {
        try (Fabric fabric = Fabric.deterministic()) {
            SoftRnic rnic = SoftRnic.builder(fabric).name("rxe0").mac(MacAddress.parse("52:54:00:00:77:02"))
                    .ipv4((Inet4Address) InetAddress.getByName("192.168.77.2")).profile(profile).attach();
            StringWriter out = new StringWriter();
            int exit = Roce4j.run(new PrintWriter(out), new PrintWriter(new StringWriter()),
                    new PeerEnvironment(DeviceSelector.of(List.of(rnic.device())), port -> { }),
                    "devinfo", "-v", "-d", "rxe0");
            assertThat(exit).isZero();
            return out.toString().lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> reference(String profileId) {
        try (InputStream in = DevinfoProfileTest.class.getResourceAsStream(profileId + "-ibv_devinfo.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
