package org.roce4j.emulator.node;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.util.ArrayList;
import java.util.List;

import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.GidEntry;
import org.roce4j.verbs.GidType;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.MacAddress;

/**
 * The port's GID table, populated as Linux fills an rxe port's: index 0 is the link-local
 * {@code fe80::} GID with the interface ID made from the MAC (modified EUI-64, RFC 4291 appendix A),
 * index 1 the IPv4 address as {@code ::ffff:a.b.c.d}, index 2 the IPv6 address when there is one.
 * The table is as long as the device's limits say ({@code DeviceLimits.gidTableLength}); the rest
 * are empty.
 */
public final class GidTable {
    private final List<Gid> gids;
    /** Entries the table has, the empty ones included (rxe: RXE_PORT_GID_TBL_LEN). */
    private final int length;
    /** The host interface the GIDs belong to ({@code ndev_ifindex}); 0 for an in-process device, which has none. */
    private final int netdevIndex;

    public GidTable(MacAddress mac, Inet4Address ipv4, Inet6Address ipv6, int length) {
        List<Gid> entries = new ArrayList<>(3);
        entries.add(new Gid(0xfe80_0000_0000_0000L, eui64(mac)));
        entries.add(Gid.of(ipv4));
        if (ipv6 != null) {
            entries.add(Gid.of(ipv6));
        }
        this.gids = List.copyOf(entries);
        this.length = length;
        this.netdevIndex = 0;
    }

    /**
     * A table given entry by entry: a link that takes its GIDs from the addresses of the host interface whose
     * index is {@code netdevIndex}.
     */
    public GidTable(List<Gid> entries, int length, int netdevIndex) {
        if (entries.isEmpty() || entries.size() > length) {
            throw new IllegalArgumentException("a GID table holds 1.." + length + " entries: " + entries);
        }
        this.gids = List.copyOf(entries);
        this.length = length;
        this.netdevIndex = netdevIndex;
    }

    /** The modified EUI-64 of a MAC: ff:fe in the middle, universal/local bit flipped. Also rxe's node GUID. */
    static long eui64(MacAddress mac) {
        long m = mac.value();
        long high = (m >>> 24) & 0xFFFFFF;
        long low = m & 0xFFFFFF;
        return ((high ^ 0x020000L) << 40) | 0xFFFEL << 24 | low;
    }

    int size() {
        return gids.size();
    }

    public boolean isValidIndex(int index) {
        return index >= 0 && index < gids.size();
    }

    /** {@code ibv_query_gid}: EINVAL past the table or for an empty entry. */
    public Gid query(int index) {
        if (!isValidIndex(index)) {
            throw new VerbsException(Errno.EINVAL, "GID index " + index + " is "
                    + (index >= 0 && index < length ? "an empty entry" : "outside the table")
                    + " (populated: 0.." + (gids.size() - 1) + ")");
        }
        return gids.get(index);
    }

    /**
     * {@code ibv_query_gid_ex} (the kernel's rdma_get_gid_attr): EINVAL past the table, ENODATA for an empty
     * entry inside it. Every GID of rxe and of the emulator is RoCE v2.
     */
    public GidEntry entry(int port, int index) {
        if (index < 0 || index >= length) {
            throw new VerbsException(Errno.EINVAL, "GID index " + index + " is outside the table of " + length);
        }
        if (!isValidIndex(index)) {
            throw new VerbsException(Errno.ENODATA, "GID index " + index + " is an empty entry (populated: 0.."
                    + (gids.size() - 1) + ")");
        }
        return new GidEntry(gids.get(index), index, port, GidType.ROCE_V2, netdevIndex);
    }

    /** {@code ibv_query_gid_table} for this port: every populated entry, by index. */
    public List<GidEntry> entries(int port) {
        List<GidEntry> entries = new ArrayList<>(gids.size());
        for (int index = 0; index < gids.size(); index++) {
            entries.add(entry(port, index));
        }
        return entries;
    }

    public Gid get(int index) {
        return gids.get(index);
    }

    boolean contains(Gid gid) {
        return gids.contains(gid);
    }

    public List<Gid> all() {
        return gids;
    }
}
