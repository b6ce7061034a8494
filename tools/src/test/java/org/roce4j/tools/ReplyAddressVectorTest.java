package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Verbs;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** ibv_init_ah_from_wc on RoCE (libibverbs verbs.c), as udaddy's server uses it to answer the client. */
class ReplyAddressVectorTest {
    /** An IPv4 header 10.0.0.2 → 10.0.0.1, TTL 64, TOS 0x20, with its checksum, in the last 20 bytes of the GRH space (rxe roce4grh). */
    private static byte[] ipv4Grh() {
        byte[] grh = new byte[40];
        byte[] ip = {0x45, 0x20, 0, 0x7c, 0x12, 0x34, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1};
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((ip[i] & 0xFF) << 8) | (ip[i + 1] & 0xFF);
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = ~sum & 0xFFFF;
        ip[10] = (byte) (sum >>> 8);
        ip[11] = (byte) sum;
        System.arraycopy(ip, 0, grh, 20, 20);
        return grh;
    }

    private static WorkCompletion received(int flags) {
        return new WorkCompletion(1, WcStatus.SUCCESS, WcOpcode.RECV, 0, 140, 0x11, 0, 0x12, 0x13, flags, 0, 0xFFFF, 0, 0);
    }

    @Test
    @DisplayName("get_grh_header_version: an IPv4 header at byte 20 is version 4; an IPv6 header is 6; "
            + "an IPv6 header whose bytes 20.. look like IPv4 without a valid checksum stays 6")
    void version() {
        assertThat(ReplyAddressVector.version(ipv4Grh())).isEqualTo(4);
        byte[] ipv6 = new byte[40];
        ipv6[0] = 0x60;
        assertThat(ReplyAddressVector.version(ipv6)).isEqualTo(6);
        ipv6[20] = 0x45;
        assertThat(ReplyAddressVector.version(ipv6)).isEqualTo(6);
        assertThat(ReplyAddressVector.version(new byte[40])).isEqualTo(-1);
    }

    @Test
    @DisplayName("set_ah_attr_by_ipv4: the answer goes to the v4-mapped source, from the GID index of the v4-mapped "
            + "destination (rxe0: index 1), hop limit = TTL, traffic class = TOS")
    void ipv4Answer() throws Exception {
        Context rxe0 = Verbs.provider("emulator").orElseThrow().devices().getFirst().open();
        try {
            AhAttr attr = ReplyAddressVector.fromWc(rxe0, 1, received(WcFlag.GRH.bit()), MemorySegment.ofArray(ipv4Grh()));

            assertThat(attr.dgid()).isEqualTo(Gid.of(InetAddress.getByName("::ffff:10.0.0.2")));
            assertThat(attr.sgidIndex()).isEqualTo(1);
            assertThat(attr.hopLimit()).isEqualTo(64);
            assertThat(attr.trafficClass()).isEqualTo(0x20);
            assertThat(attr.portNum()).isEqualTo(1);
            assertThatThrownBy(() -> ReplyAddressVector.fromWc(rxe0, 1, received(0), MemorySegment.ofArray(ipv4Grh())))
                    .isInstanceOf(ReplyAddressVector.NoReply.class);
        } finally {
            rxe0.close();
        }
    }
}
