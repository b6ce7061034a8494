package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Device;
import org.roce4j.wire.MacAddress;

/** devices and devinfo print what ibv_devices and ibv_devinfo print, for devices handed to them. */
class DevinfoCommandTest {
    private static Fabric fabric;
    private static PeerEnvironment environment;

    @BeforeAll
    static void attach() throws Exception {
        fabric = Fabric.deterministic();
        List<Device> devices = List.of(
                SoftRnic.attach(fabric, "dev0", MacAddress.parse("52:54:00:00:77:02"),
                        (Inet4Address) InetAddress.getByName("192.168.77.2")).device(),
                SoftRnic.attach(fabric, "dev1", MacAddress.parse("52:54:00:00:77:03"),
                        (Inet4Address) InetAddress.getByName("192.168.77.3")).device());
        environment = new PeerEnvironment(DeviceSelector.of(devices), port -> { });
    }

    @AfterAll
    static void close() {
        fabric.close();
    }

    @Test
    @DisplayName("devices: ibv_devices' header and one '    %-16s\\t%016llx' line per device (node GUID = modified EUI-64 of the MAC)")
    void devices() {
        Run run = run("devices");

        assertThat(run.exit).isZero();
        assertThat(run.out).isEqualTo("""
                    device          \t   node GUID
                    ------          \t----------------
                    dev0            \t505400fffe007702
                    dev1            \t505400fffe007703
                """);
    }

    @Test
    @DisplayName("devinfo -d dev1 -v: hca_id, GUIDs as four groups, port 1 Ethernet, and the GID table as ibv_devinfo -v prints it")
    void verbose() {
        Run run = run("devinfo", "-d", "dev1", "-v");

        assertThat(run.exit).isZero();
        assertThat(run.out).startsWith("hca_id:\tdev1\n\ttransport:\t\t\tInfiniBand (0)\n")
                .contains("\tnode_guid:\t\t\t5054:00ff:fe00:7703\n",
                        "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t1024 (3)\n",
                        "\t\t\tlink_layer:\t\tEthernet\n",
                        "\t\t\tGID[  0]:\t\tfe80::5054:ff:fe00:7703, RoCE v2\n",
                        "\t\t\tGID[  1]:\t\t::ffff:192.168.77.3, RoCE v2\n")
                .doesNotContain("dev0");
    }

    @Test
    @DisplayName("devinfo without -v has no GID table; without -d it prints every device")
    void plain() {
        Run run = run("devinfo");

        assertThat(run.exit).isZero();
        assertThat(run.out).contains("hca_id:\tdev0\n", "hca_id:\tdev1\n").doesNotContain("GID[");
    }

    @Test
    @DisplayName("devinfo -l: 'N HCAs found:' and the names; -d unknown: \"IB device 'X' wasn't found\"")
    void listAndUnknown() {
        assertThat(run("devinfo", "-l").out).isEqualTo("2 HCAs found:\n\tdev0\n\tdev1\n\n");
        Run unknown = run("devinfo", "-d", "mlx5_0");
        assertThat(unknown.exit).isEqualTo(1);
        assertThat(unknown.err).isEqualTo("IB device 'mlx5_0' wasn't found\n");
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Roce4j.run(new PrintWriter(out), new PrintWriter(err), environment, args);
        return new Run(exit, out.toString().replace(System.lineSeparator(), "\n"), err.toString().replace(System.lineSeparator(), "\n"));
    }
}
