package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.roce4j.verbs.Device;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * What {@code ibv_get_device_list} finds, and why it found nothing when it did: no libibverbs, a
 * kernel without RDMA (ENOSYS), no device, no access to {@code /dev/infiniband}. Never throws: the
 * absence of RDMA is an answer, not an error.
 *
 * @param library    the loaded library, or null
 * @param devices    the devices, possibly none
 * @param diagnostic one line for humans: what was found, or why nothing was
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
record Discovery(LibIbverbs library, List<Device> devices, String diagnostic) {

    static Discovery discover(String libraryName) {
        LibIbverbs lib;
        try {
            lib = new LibIbverbs(libraryName);
        } catch (IllegalArgumentException e) {
            return none(libraryName + " could not be loaded (" + e.getMessage() + "): install rdma-core's "
                    + "libibverbs (Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers)");
        } catch (java.util.NoSuchElementException e) {
            return none(libraryName + " is too old (" + e.getMessage() + "): rdma-core 29 or newer is needed");
        } catch (IllegalCallerException e) {
            return none("native access is disabled (" + e.getMessage()
                    + "): start the JVM with --enable-native-access=ALL-UNNAMED");
        }
        try {
            return list(lib, libraryName);
        } catch (RuntimeException e) {
            return none("ibv_get_device_list failed unexpectedly: " + e);
        }
    }

    private static Discovery list(LibIbverbs lib, String libraryName) {
        // The list is kept for the life of the JVM: ibv_device pointers stay valid while it is.
        MemorySegment count = Arena.global().allocate(JAVA_INT);
        MemorySegment array;
        try {
            array = LibIbverbs.pointer("ibv_get_device_list", lib.getDeviceList, count);
        } catch (VerbsException e) {
            return new Discovery(lib, List.of(), "no RDMA devices: ibv_get_device_list failed with "
                    + e.errno().name() + " (" + e.errno().text() + ")" + whyFailed(e.errno()));
        }
        int n = count.get(JAVA_INT, 0);
        MemorySegment pointers = array.reinterpret(ADDRESS.byteSize() * (n + 1L));
        List<Device> devices = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            devices.add(new IbvDevice(lib, pointers.getAtIndex(ADDRESS, i)));
        }
        if (devices.isEmpty()) {
            return new Discovery(lib, List.of(), "no RDMA devices: " + libraryName + " loaded, but it lists none"
                    + whyEmpty());
        }
        return new Discovery(lib, List.copyOf(devices), libraryName + ": " + n + " device(s): "
                + devices.stream().map(Device::name).collect(Collectors.joining(", ")));
    }

    private static String whyFailed(Errno errno) {
        if (errno == Errno.ENOSYS) {
            return ": this kernel has no RDMA support (no " + SYSFS_VERBS + "); run on a Linux host with an RNIC"
                    + " or Soft-RoCE (modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0)";
        }
        if (errno == Errno.EACCES || errno == Errno.EPERM) {
            return ": no permission to open /dev/infiniband/uverbs*";
        }
        return "";
    }

    private static final Path SYSFS_VERBS = Path.of("/sys/class/infiniband_verbs");

    private static String whyEmpty() {
        Path sysfs = Path.of("/sys/class/infiniband");
        try (var entries = Files.list(sysfs)) {
            List<String> names = entries.map(p -> p.getFileName().toString()).toList();
            if (names.isEmpty()) {
                return ": " + sysfs + " is empty (add a device, e.g. Soft-RoCE: rdma link add rxe0 type rxe netdev eth0)";
            }
            return ": the kernel has " + names + " but no user-space provider matched them (install ibverbs-providers)";
        } catch (java.io.IOException e) {
            return ": " + sysfs + " does not exist (load the RDMA driver, e.g. modprobe rdma_rxe)";
        }
    }

    private static Discovery none(String why) {
        return new Discovery(null, List.of(), "no RDMA devices: " + why);
    }
}
