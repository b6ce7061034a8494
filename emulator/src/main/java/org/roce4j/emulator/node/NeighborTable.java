package org.roce4j.emulator.node;

import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Gid;

/**
 * What ARP and neighbour discovery would tell a node on a real link: the MAC behind each GID of the
 * nodes attached to one fabric. Kept per fabric (weakly, so a closed fabric's table goes with it).
 */
final class NeighborTable {
    private static final Map<Fabric, NeighborTable> TABLES = new WeakHashMap<>();

    private final Map<Gid, Long> macs = new ConcurrentHashMap<>();

    static NeighborTable of(Fabric fabric) {
        synchronized (TABLES) {
            return TABLES.computeIfAbsent(fabric, f -> new NeighborTable());
        }
    }

    void add(Gid gid, long mac) {
        macs.put(gid, mac);
    }

    /** The MAC of a GID, or -1 when no node of the fabric has it. */
    long lookup(Gid gid) {
        Long mac = macs.get(gid);
        if (mac != null) {
            return mac;
        }
        // A link-local GID carries its MAC (RFC 4291 appendix A): undo the modified EUI-64.
        if (gid.subnetPrefix() == 0xfe80_0000_0000_0000L && ((gid.interfaceId() >>> 24) & 0xFFFF) == 0xFFFE) {
            long id = gid.interfaceId();
            return ((id >>> 40) ^ 0x020000L) << 24 | (id & 0xFFFFFF);
        }
        return -1;
    }
}
