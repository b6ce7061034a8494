package org.roce4j.tools;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WorkCompletion;

/**
 * libibverbs' {@code ibv_init_ah_from_wc} on RoCE (verbs.c): the address vector that answers a UD
 * receive, read from the 40 bytes its buffer starts with. Over IPv4 the IP header sits in the last
 * 20 of them (rxe_resp.c roce4grh); {@code get_grh_header_version} tells the two apart by the
 * version nibbles and, when both could fit, by the IPv4 header checksum.
 */
final class ReplyAddressVector {
    static final int GRH_BYTES = 40;
    private static final int IPV4_OFFSET = 20;

    private ReplyAddressVector() {
    }

    /** Why no address vector could be made (the C call returns -1). */
    static final class NoReply extends Exception {
        NoReply(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * {@return the address vector back to the sender of {@code wc}}
     *
     * @param context the receiving device, whose GID table gives the source GID index
     * @param portNum its port
     * @param grh     the first 40 bytes of the receive buffer
     */
    static AhAttr fromWc(Context context, int portNum, WorkCompletion wc, MemorySegment grh) throws NoReply {
        if (!WcFlag.GRH.isSetIn(wc.wcFlags())) {
            throw new NoReply("no GRH: RoCE addresses are global");
        }
        byte[] bytes = grh.asSlice(0, GRH_BYTES).toArray(ValueLayout.JAVA_BYTE);
        int flowLabel = (int) (be32(bytes, 0) & 0xFFFFF);
        Gid destination;
        Gid mine;
        int hopLimit;
        int trafficClass;
        if (version(bytes) == 4) {
            // set_ah_attr_by_ipv4: v4-mapped GIDs from the IPv4 source and destination
            mine = Gid.of(mapped(bytes, IPV4_OFFSET + 16));
            destination = Gid.of(mapped(bytes, IPV4_OFFSET + 12));
            hopLimit = bytes[IPV4_OFFSET + 8] & 0xFF;
            trafficClass = bytes[IPV4_OFFSET + 1] & 0xFF;
        } else {
            // set_ah_attr_by_ipv6: the GRH's source GID is where the answer goes
            destination = Gid.of(Arrays.copyOfRange(bytes, 8, 24));
            mine = Gid.of(Arrays.copyOfRange(bytes, 24, 40));
            hopLimit = bytes[7] & 0xFF;
            trafficClass = (int) ((be32(bytes, 0) >>> 20) & 0xFF);
        }
        int sgidIndex = findGidIndex(context, portNum, mine);
        return new AhAttr(destination, sgidIndex, flowLabel, hopLimit, trafficClass, wc.sl(), portNum);
    }

    // get_grh_header_version
    static int version(byte[] grh) {
        int ipv6Version = (grh[0] >> 4) & 0xF;
        int ipv4Version = (grh[IPV4_OFFSET] >> 4) & 0xF;
        int ihl = grh[IPV4_OFFSET] & 0xF;
        if (ipv6Version != 6) {
            return ipv4Version == 4 ? 4 : -1;
        }
        if (ihl != 5) {
            return 6;
        }
        return ipv4ChecksumHolds(grh) ? 4 : 6;
    }

    private static boolean ipv4ChecksumHolds(byte[] grh) {
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((grh[IPV4_OFFSET + i] & 0xFF) << 8) | (grh[IPV4_OFFSET + i + 1] & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return sum == 0xFFFF; // a header with its checksum in place sums to all ones
    }

    // ibv_find_gid_index
    private static int findGidIndex(Context context, int portNum, Gid gid) throws NoReply {
        int entries = context.queryPort(portNum).gidTblLen();
        for (int index = 0; index < entries; index++) {
            try {
                if (context.queryGid(portNum, index).equals(gid)) {
                    return index;
                }
            } catch (RuntimeException emptyEntry) {
                // an unused GID table entry: go on
            }
        }
        throw new NoReply("no local GID " + gid);
    }

    private static byte[] mapped(byte[] bytes, int ipv4At) {
        byte[] gid = new byte[16];
        gid[10] = (byte) 0xFF;
        gid[11] = (byte) 0xFF;
        System.arraycopy(bytes, ipv4At, gid, 12, 4);
        return gid;
    }

    private static long be32(byte[] bytes, int at) {
        return ((bytes[at] & 0xFFL) << 24) | ((bytes[at + 1] & 0xFFL) << 16) | ((bytes[at + 2] & 0xFFL) << 8)
                | (bytes[at + 3] & 0xFFL);
    }
}
