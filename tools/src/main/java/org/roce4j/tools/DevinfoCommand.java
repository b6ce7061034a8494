package org.roce4j.tools;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

import org.roce4j.verbs.Context;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.DeviceCapFlag;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.PortAttr;
import org.roce4j.verbs.VerbsException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code roce4j devinfo [-d DEV] [-i PORT] [-l] [-v]}: devices and ports as {@code ibv_devinfo}
 * prints them, with {@code -v} the device limits the Verbs API reports and each port's GID table
 * ({@code GID[  1]:		::ffff:10.0.0.1, RoCE v2}; every roce4j GID is a RoCE v2 GID). Fields
 * the Verbs API does not carry (max_ee, ODP and TSO caps, ...) are left out rather than invented.
 */
@Command(name = "devinfo", sortOptions = false,
        description = {"Like ibv_devinfo: prints each RDMA device's attributes and ports; -v adds the limits",
            "and the GID table.", ""})
final class DevinfoCommand extends PeerCommand implements Callable<Integer> {
    @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV",
            description = "use IB device DEV (default: all devices); emu:ADDRESS or emu:IFNAME for a UDP emulated RNIC")
    private String ibDev;

    @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", converter = PingpongCommand.CNumber.class,
            description = "use port PORT of IB device (default all ports)")
    private int ibPort;

    @Option(names = {"-l", "--list"}, description = "print only the IB devices names")
    private boolean list;

    @Option(names = {"-v", "--verbose"}, description = "print all the attributes of the IB device(s)")
    private boolean verbose;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    private boolean help;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (ibPort < 0) {
            return Roce4j.fail(spec, "--ib-port must be 1 or more");
        }
        if (list) {
            List<Device> devices = environment.devices().devices();
            out.printf("%d HCA%s found:%n", devices.size(), devices.size() != 1 ? "s" : "");
            for (Device device : devices) {
                out.printf("\t%s%n", device.name());
            }
            out.println();
            return 0;
        }
        if (ibDev != null) {
            try (DeviceSelector.Selection selection = environment.devices().select(ibDev)) {
                return print(selection.device(), out, err);
            } catch (DeviceSelector.NoSuchDevice e) {
                err.printf("IB device '%s' wasn't found%n", ibDev);
                return 1;
            } catch (Exception e) {
                err.println("Couldn't open device " + ibDev + ": " + e.getMessage());
                return 1;
            }
        }
        List<Device> devices = environment.devices().devices();
        if (devices.isEmpty()) {
            err.println("No IB devices found");
            return 1;
        }
        int status = 0;
        for (Device device : devices) {
            status |= print(device, out, err);
        }
        return status;
    }

    /** print_hca_cap. */
    private int print(Device device, PrintWriter out, PrintWriter err) {
        Context context;
        try {
            context = device.open();
        } catch (VerbsException e) {
            err.println("Failed to open device");
            return 1;
        }
        try (context) {
            DeviceAttr attr = context.queryDevice();
            if (ibPort > 0 && ibPort > attr.physPortCnt()) {
                err.println("Invalid port requested for device");
                return 1;
            }
            out.printf("hca_id:\t%s%n", device.name());
            out.printf("\ttransport:\t\t\t%s (%d)%n", "InfiniBand", 0); // RoCE devices report IBV_TRANSPORT_IB
            if (attr.fwVer() != null && !attr.fwVer().isEmpty()) {
                out.printf("\tfw_ver:\t\t\t\t%s%n", attr.fwVer());
            }
            out.printf("\tnode_guid:\t\t\t%s%n", guid(attr.nodeGuid()));
            out.printf("\tsys_image_guid:\t\t\t%s%n", guid(attr.sysImageGuid()));
            out.printf("\tvendor_id:\t\t\t0x%04x%n", attr.vendorId());
            out.printf("\tvendor_part_id:\t\t\t%d%n", attr.vendorPartId());
            out.printf("\thw_ver:\t\t\t\t0x%X%n", attr.hwVer());
            out.printf("\tphys_port_cnt:\t\t\t%d%n", attr.physPortCnt());
            if (verbose) {
                printLimits(context, attr, out);
            }
            for (int port = 1; port <= attr.physPortCnt(); port++) {
                if (ibPort > 0 && port != ibPort) {
                    continue;
                }
                PortAttr portAttr;
                try {
                    portAttr = context.queryPort(port);
                } catch (VerbsException e) {
                    err.printf("Failed to query port %d props%n", port);
                    return 1;
                }
                printPort(context, port, portAttr, out);
            }
            return 0;
        }
    }

    private static void printLimits(Context context, DeviceAttr attr, PrintWriter out) {
        out.printf("\tmax_mr_size:\t\t\t0x%x%n", attr.maxMrSize());
        out.printf("\tpage_size_cap:\t\t\t0x%x%n", attr.pageSizeCap());
        out.printf("\tmax_qp:\t\t\t\t%d%n", attr.maxQp());
        out.printf("\tmax_qp_wr:\t\t\t%d%n", attr.maxQpWr());
        out.printf("\tdevice_cap_flags:\t\t0x%08x%n", DeviceCapFlag.bits(attr.deviceCapFlags()));
        for (DeviceCapFlag flag : attr.deviceCapFlags()) { // print_device_cap_flags: one name a line, in bit order
            out.printf("\t\t\t\t\t%s%n", flag.name());
        }
        out.printf("\tmax_sge:\t\t\t%d%n", attr.maxSge());
        out.printf("\tmax_sge_rd:\t\t\t%d%n", attr.maxSgeRd());
        out.printf("\tmax_cq:\t\t\t\t%d%n", attr.maxCq());
        out.printf("\tmax_cqe:\t\t\t%d%n", attr.maxCqe());
        out.printf("\tmax_mr:\t\t\t\t%d%n", attr.maxMr());
        out.printf("\tmax_pd:\t\t\t\t%d%n", attr.maxPd());
        out.printf("\tmax_qp_rd_atom:\t\t\t%d%n", attr.maxQpRdAtom());
        out.printf("\tmax_res_rd_atom:\t\t%d%n", attr.maxResRdAtom());
        out.printf("\tmax_qp_init_rd_atom:\t\t%d%n", attr.maxQpInitRdAtom());
        out.printf("\tatomic_cap:\t\t\t%s (%d)%n", "ATOMIC_" + attr.atomicCap().name(), attr.atomicCap().ordinal());
        out.printf("\tmax_mw:\t\t\t\t%d%n", attr.maxMw());
        out.printf("\tmax_mcast_grp:\t\t\t%d%n", attr.maxMcastGrp());
        out.printf("\tmax_mcast_qp_attach:\t\t%d%n", attr.maxMcastQpAttach());
        out.printf("\tmax_total_mcast_qp_attach:\t%d%n", attr.maxTotalMcastQpAttach());
        out.printf("\tmax_ah:\t\t\t\t%d%n", attr.maxAh());
        out.printf("\tmax_srq:\t\t\t%d%n", attr.maxSrq());
        if (attr.maxSrq() != 0) {
            out.printf("\tmax_srq_wr:\t\t\t%d%n", attr.maxSrqWr());
            out.printf("\tmax_srq_sge:\t\t\t%d%n", attr.maxSrqSge());
        }
        out.printf("\tmax_pkeys:\t\t\t%d%n", attr.maxPkeys());
        out.printf("\tlocal_ca_ack_delay:\t\t%d%n", attr.localCaAckDelay());
        out.printf("\tnum_comp_vectors:\t\t%d%n", context.numCompVectors());
    }

    private void printPort(Context context, int port, PortAttr attr, PrintWriter out) {
        out.printf("\t\tport:\t%d%n", port);
        out.printf("\t\t\tstate:\t\t\t%s (%d)%n", portState(attr.state()), attr.state().ordinal());
        out.printf("\t\t\tmax_mtu:\t\t%d (%d)%n", attr.maxMtu().bytes(), attr.maxMtu().value());
        out.printf("\t\t\tactive_mtu:\t\t%d (%d)%n", attr.activeMtu().bytes(), attr.activeMtu().value());
        out.printf("\t\t\tsm_lid:\t\t\t%d%n", attr.smLid());
        out.printf("\t\t\tport_lid:\t\t%d%n", attr.lid());
        out.printf("\t\t\tport_lmc:\t\t0x%02x%n", 0);
        out.printf("\t\t\tlink_layer:\t\t%s%n", attr.linkLayer() == PortAttr.LinkLayer.ETHERNET ? "Ethernet" : "InfiniBand");
        if (verbose) {
            out.printf("\t\t\tmax_msg_sz:\t\t0x%x%n", attr.maxMsgSz());
            out.printf("\t\t\tport_cap_flags:\t\t0x%08x%n", attr.portCapFlags());
            out.printf("\t\t\tpkey_tbl_len:\t\t%d%n", attr.pkeyTblLen());
            out.printf("\t\t\tgid_tbl_len:\t\t%d%n", attr.gidTblLen());
            out.printf("\t\t\tactive_width:\t\t%sX (%d)%n", width(attr.activeWidth()), attr.activeWidth());
            out.printf("\t\t\tactive_speed:\t\t%s (%d)%n", speed(attr.activeSpeed()), attr.activeSpeed());
            out.printf("\t\t\tphys_state:\t\t%s (%d)%n", physState(attr.physState()), attr.physState());
            for (int index = 0; index < attr.gidTblLen(); index++) {
                Gid gid;
                try {
                    gid = context.queryGid(port, index);
                } catch (VerbsException emptyEntry) {
                    continue; // the kernel's table lists empty entries as zeros, which devinfo skips
                }
                if (gid.interfaceId() != 0) { // null_gid: bytes 8..15 all zero
                    out.printf("\t\t\tGID[%3d]:\t\t%s, RoCE v2%n", index, PingpongAddress.gidText(gid));
                }
            }
        }
        out.println();
    }

    /** guid_str: the GUID as four groups of four hex digits. */
    static String guid(long guid) {
        return String.format("%04x:%04x:%04x:%04x", (guid >>> 48) & 0xFFFF, (guid >>> 32) & 0xFFFF,
                (guid >>> 16) & 0xFFFF, guid & 0xFFFF);
    }

    /** width_str: IBTA's active width encoding. */
    private static String width(int width) {
        return switch (width) {
            case 1 -> "1";
            case 2 -> "4";
            case 4 -> "8";
            case 8 -> "12";
            case 16 -> "2";
            default -> "invalid width";
        };
    }

    /** speed_str: IBTA's active speed encoding (active_speed; RoCE devices have no active_speed_ex). */
    private static String speed(int speed) {
        return switch (speed) {
            case 1 -> "2.5 Gbps";
            case 2 -> "5.0 Gbps";
            case 4, 8 -> "10.0 Gbps";
            case 16 -> "14.0 Gbps";
            case 32 -> "25.0 Gbps";
            case 64 -> "50.0 Gbps";
            case 128 -> "100.0 Gbps";
            case 256 -> "200.0 Gbps";
            default -> "invalid speed";
        };
    }

    private static String portState(PortAttr.PortState state) {
        return switch (state) {
            case DOWN -> "PORT_DOWN";
            case INIT -> "PORT_INIT";
            case ARMED -> "PORT_ARMED";
            case ACTIVE -> "PORT_ACTIVE";
            default -> "invalid state";
        };
    }

    private static String physState(int state) {
        return switch (state) {
            case 1 -> "SLEEP";
            case 2 -> "POLLING";
            case 3 -> "DISABLED";
            case 4 -> "PORT_CONFIGURATION TRAINNING";
            case 5 -> "LINK_UP";
            case 6 -> "LINK_ERROR_RECOVERY";
            case 7 -> "PHY TEST";
            default -> "invalid physical state";
        };
    }
}
