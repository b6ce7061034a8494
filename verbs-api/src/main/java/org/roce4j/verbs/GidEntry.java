package org.roce4j.verbs;

import java.util.Objects;

/**
 * One valid entry of a port's GID table: {@code struct ibv_gid_entry}, as {@link Context#queryGidEx} and
 * {@link Context#queryGidTable} give it.
 *
 * @param gid         the GID
 * @param gidIndex    its index in the port's table: what an address vector's {@code sgid_index} names
 * @param portNum     the port, from 1
 * @param gidType     what it addresses (RoCE v2 on every RoCE device roce4j drives)
 * @param ndevIfindex the interface index of the net device the GID belongs to, 0 when there is none (an
 *                    in-process emulated device)
 */
public record GidEntry(Gid gid, int gidIndex, int portNum, GidType gidType, int ndevIfindex) {

    /** Checks that the GID and its type are given. */
    public GidEntry {
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(gidType, "gidType");
    }
}
