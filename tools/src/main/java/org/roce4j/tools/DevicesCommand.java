package org.roce4j.tools;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import org.roce4j.verbs.Device;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code roce4j devices}: the device list as {@code ibv_devices} prints it (name and node GUID). */
@Command(name = "devices", description = {"Like ibv_devices: lists the RDMA devices and their node GUIDs.", ""})
final class DevicesCommand extends PeerCommand implements Callable<Integer> {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.printf("    %-16s\t   node GUID%n", "device");
        out.printf("    %-16s\t----------------%n", "------");
        for (Device device : environment.devices().devices()) {
            out.printf("    %-16s\t%016x%n", device.name(), device.guid());
        }
        return 0;
    }
}
