package org.roce4j.emulator.verbs;

import java.util.EnumSet;
import java.util.Set;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.DeviceCapFlag;

/**
 * What {@code ibv_query_device} says a device can do ({@code device_cap_flags}) and how many completion
 * vectors its contexts have.
 */
public final class DeviceCapabilities {
    /**
     * What the emulator implements: an address vector's port is checked (EmulatedPd.resolvePath), it reports
     * a system image GUID, an RC responder without a receive WQE sends an RNR NAK, SRQs can be resized,
     * memory windows of type 1 and type 2B work (MemoryRegionTable).
     */
    static final Set<DeviceCapFlag> IMPLEMENTED = EnumSet.of(DeviceCapFlag.UD_AV_PORT_ENFORCE,
            DeviceCapFlag.SYS_IMAGE_GUID, DeviceCapFlag.RC_RNR_NAK_GEN, DeviceCapFlag.SRQ_RESIZE,
            DeviceCapFlag.MEM_WINDOW, DeviceCapFlag.MEM_WINDOW_TYPE_2B);
    /**
     * rxe_param.h RXE_DEVICE_CAP_FLAGS as {@code ibv_query_device} reports it on kernels 6.1 and 6.12
     * ({@code rxe-probe-capacities.c}: 0x1223c76): BAD_PKEY_CNTR, BAD_QKEY_CNTR, AUTO_PATH_MIG,
     * CHANGE_PHY_PORT, UD_AV_PORT_ENFORCE, PORT_ACTIVE_EVENT, SYS_IMAGE_GUID, RC_RNR_NAK_GEN, SRQ_RESIZE,
     * MEM_WINDOW, MEM_MGT_EXTENSIONS, MEM_WINDOW_TYPE_2B.
     */
    static final Set<DeviceCapFlag> RXE = DeviceCapFlag.of(0x1223c76);
    /**
     * {@code context->num_comp_vectors}. rxe has num_possible_cpus() (2 in the project's VMs), which would
     * make a report depend on the machine; the emulator delivers every completion event from one place
     * (the fabric's loop or the poller), so it has one vector, on every machine.
     */
    public static final int COMP_VECTORS = 1;

    private DeviceCapabilities() {
    }

    /** {@return the device_cap_flags the device reports} */
    public static Set<DeviceCapFlag> of(DeviceModel model) {
        return model.has(Quirk.REPORTS_RXE_DEVICE_CAP_FLAGS) ? RXE : IMPLEMENTED;
    }
}
