package org.roce4j.emulator.node;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.verbs.DeviceLimits;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.PacketInfo;

/**
 * The multicast groups of one port and the QPs attached to each, in the two layers Linux has:
 * uverbs keeps each QP's list of (GID, LID) attachments ({@code ib_uverbs_attach_mcast}: an entry
 * already on it is a no-op; {@code ib_uverbs_detach_mcast}: an entry not on it is EINVAL; a QP with
 * entries cannot be destroyed, EBUSY), and rxe keeps a group per GID with its member QPs
 * ({@code rxe_mcast.c}: the group appears with its first member and goes with its last; a QP
 * attached twice is one member). Because a second LID is a second uverbs entry over the same
 * member, detaching either LID takes the QP out of the group, as on rxe. The core counts the
 * attaches that succeeded less the detaches that did (core/verbs.c: {@code qp->usecnt}) and
 * ib_destroy_qp_user refuses a QP whose count is not 0: after a second LID the count can never
 * come back to 0 (its detaches cannot all succeed), so that QP cannot be destroyed (EBUSY), as on
 * rxe0.
 *
 * <p>A multicast packet (BTH DestQP 0xFFFFFF) is handed to each member in attach order
 * ({@code rxe_recv.c rxe_rcv_mcast_pkt}); each member checks its type, state and Q_Key as for a
 * unicast packet. The sending QP is not skipped: rxe does not skip it.
 */
public final class MulticastGroups {
    /** IBTA 9.2.4 / 10.5: the BTH DestQP of a multicast packet. */
    public static final int MULTICAST_QPN = 0xFFFFFF;

    /** One uverbs attachment: the group and the LID it was attached with. */
    private record Attachment(Gid gid, int lid) {
    }

    private final Rnic rnic;
    private final Map<Gid, List<EmulatedQp>> groups = new LinkedHashMap<>();
    private final Map<EmulatedQp, List<Attachment>> attachmentsByQp = new LinkedHashMap<>();
    /** Per QP, ib_attach_mcast's that succeeded less ib_detach_mcast's that did (the core's qp->usecnt share). */
    private final Map<EmulatedQp, Integer> useCounts = new LinkedHashMap<>();
    private int memberships;

    MulticastGroups(Rnic rnic) {
        this.rnic = rnic;
    }

    private DeviceLimits limits() {
        return rnic.model.limits();
    }

    /** {@code ibv_attach_mcast}, under the fabric lock. */
    public void attach(EmulatedQp qp, Gid gid, int lid) {
        String verb = "ibv_attach_mcast";
        Attachment attachment = new Attachment(gid, lid & 0xFFFF);
        List<Attachment> attachments = attachmentsByQp.get(qp);
        if (attachments != null && attachments.contains(attachment)) {
            return; // uverbs_cmd.c ib_uverbs_attach_mcast: already on the QP's list
        }
        // core/verbs.c ib_attach_mcast: the LID is ignored on an Ethernet port (IBTA A17.5.6, is_valid_mcast_lid)
        if (!gid.isMulticast()) {
            throw new VerbsException(Errno.EINVAL, verb + ": " + gid + " is not a multicast GID");
        }
        if (qp.type != QpType.UD) {
            throw new VerbsException(Errno.EINVAL, verb + ": only a UD QP joins a multicast group, not " + qp.type);
        }
        if (limits().maxMcastGrp() == 0) {
            throw new VerbsException(Errno.EINVAL, verb + ": the device has no multicast groups (max_mcast_grp 0)");
        }
        List<EmulatedQp> members = groups.get(gid);
        boolean created = members == null;
        if (created) {
            if (groups.size() >= limits().maxMcastGrp()) { // rxe_get_mcg: mcg_num > max_mcast_grp
                throw new VerbsException(Errno.ENOMEM, verb + ": the device's " + limits().maxMcastGrp()
                        + " multicast groups are in use");
            }
            members = new ArrayList<>();
        }
        if (!members.contains(qp)) {
            // rxe __rxe_init_mca: the device-wide count first, then the group's
            if (memberships >= limits().maxTotalMcastQpAttach() || members.size() >= limits().maxMcastQpAttach()) {
                throw new VerbsException(Errno.ENOMEM, verb + ": " + (members.size() >= limits().maxMcastQpAttach()
                        ? "the group has its max_mcast_qp_attach " + limits().maxMcastQpAttach() + " QPs"
                        : "the device's max_total_mcast_qp_attach " + limits().maxTotalMcastQpAttach()
                        + " attachments are in use"));
            }
            members.add(qp);
            memberships++;
        }
        if (created) {
            groups.put(gid, members);
        }
        attachmentsByQp.computeIfAbsent(qp, q -> new ArrayList<>(2)).add(attachment);
        useCounts.merge(qp, 1, Integer::sum); // ib_attach_mcast: atomic_inc(&qp->usecnt)
    }

    /** {@code ibv_detach_mcast}, under the fabric lock. */
    public void detach(EmulatedQp qp, Gid gid, int lid) {
        String verb = "ibv_detach_mcast";
        List<Attachment> attachments = attachmentsByQp.get(qp);
        if (attachments == null || !attachments.remove(new Attachment(gid, lid & 0xFFFF))) {
            throw new VerbsException(Errno.EINVAL, verb + ": the QP is not attached to " + gid + " with LID " + lid);
        }
        if (attachments.isEmpty()) {
            attachmentsByQp.remove(qp);
        }
        List<EmulatedQp> members = groups.get(gid);
        if (members == null || !members.remove(qp)) { // rxe_detach_mcast / rxe_detach_mcg
            throw new VerbsException(Errno.EINVAL, verb + ": the QP is no longer a member of " + gid
                    + " (it was detached with another LID)");
        }
        memberships--;
        if (useCounts.merge(qp, -1, Integer::sum) == 0) { // ib_detach_mcast: atomic_dec(&qp->usecnt)
            useCounts.remove(qp);
        }
        if (members.isEmpty()) {
            groups.remove(gid);
        }
    }

    /**
     * {@return whether the QP cannot be destroyed (EBUSY): it has attachments (uverbs_free_qp), or the core
     * still counts a use of it (ib_destroy_qp_user: qp->usecnt)}
     */
    public boolean holdsQp(EmulatedQp qp) {
        return attachmentsByQp.containsKey(qp) || useCounts.containsKey(qp);
    }

    /** {@return the groups with members, in the order they appeared} */
    public List<Gid> groups() {
        return List.copyOf(groups.keySet());
    }

    /** {@return the IP addresses of the groups with members: what a link joins on its interface} */
    List<InetAddress> groupAddresses() {
        List<InetAddress> addresses = new ArrayList<>(groups.size());
        for (Gid group : groups.keySet()) {
            addresses.add(group.toInetAddress());
        }
        return addresses;
    }

    /**
     * A packet to DestQP 0xFFFFFF: each member of the group its destination IP names receives it
     * (rxe_rcv_mcast_pkt); no group, dropped and counted.
     */
    void deliver(PacketInfo packet, long nowNanos) {
        List<EmulatedQp> members = groups.get(destinationGroup(packet));
        if (members == null) {
            rnic.count(RnicCounter.DROPPED_NO_MCAST_GROUP);
            return;
        }
        for (int i = 0; i < members.size(); i++) {
            members.get(i).receive(packet, nowNanos);
        }
    }

    /** rxe_rcv_mcast_pkt: the group is the destination IP, an IPv4 one mapped into a GID. */
    private static Gid destinationGroup(PacketInfo packet) {
        byte[] b = packet.buffer();
        int dst = packet.ipDestinationOffset();
        if (packet.ipVersion() == 4) {
            long v4 = (b[dst] & 0xFFL) << 24 | (b[dst + 1] & 0xFFL) << 16 | (b[dst + 2] & 0xFFL) << 8 | (b[dst + 3] & 0xFFL);
            return new Gid(0, 0xFFFF_0000_0000L | v4);
        }
        byte[] raw = new byte[16];
        System.arraycopy(b, dst, raw, 0, 16);
        return Gid.of(raw);
    }

    /** {@return whether a destination IP address is a multicast one} (rxe_chk_dgid accepts every such packet) */
    static boolean isMulticastDestination(PacketInfo packet) {
        byte first = packet.buffer()[packet.ipDestinationOffset()];
        return packet.ipVersion() == 4 ? (first & 0xF0) == 0xE0 : first == (byte) 0xFF;
    }

    /**
     * {@return the Ethernet address a frame to a multicast group goes to} RFC 1112 §6.4: 01:00:5e and the
     * group's low 23 bits for IPv4; RFC 2464 §7: 33:33 and the low 32 bits for IPv6
     * (core/verbs.c ib_resolve_eth_dmac: ip_eth_mc_map, ipv6_eth_mc_map).
     */
    public static long groupMac(Gid group) {
        if (group.isIpv4Mapped()) {
            return 0x0100_5E00_0000L | (group.interfaceId() & 0x7F_FFFFL);
        }
        return 0x3333_0000_0000L | (group.interfaceId() & 0xFFFF_FFFFL);
    }
}
