package org.roce4j.verbs;

import java.util.Objects;

/**
 * An address vector ({@code struct ibv_ah_attr} with its GRH): where packets go. On RoCE every
 * address is global, so the GRH fields are always used; the LID is ignored.
 *
 * @param dgid          destination GID
 * @param sgidIndex     index of the source GID in the local port's GID table
 * @param flowLabel     IPv6 flow label (20 bits)
 * @param hopLimit      IP TTL / hop limit
 * @param trafficClass  IP DSCP and ECN byte
 * @param sl            service level
 * @param portNum       local port, from 1
 */
public record AhAttr(Gid dgid, int sgidIndex, int flowLabel, int hopLimit, int trafficClass, int sl, int portNum) {
    /** Requires a destination GID (NullPointerException). */
    public AhAttr {
        Objects.requireNonNull(dgid, "dgid");
    }

    /**
     * {@return a RoCE address vector with the defaults of the rdma-core examples (hop limit 1 there; 64 here, as rdma_cm uses)}
     *
     * @param dgid      the destination GID
     * @param sgidIndex the local GID index to send from
     * @param portNum   the local port, from 1
     */
    public static AhAttr of(Gid dgid, int sgidIndex, int portNum) {
        return new AhAttr(dgid, sgidIndex, 0, 64, 0, 0, portNum);
    }
}
