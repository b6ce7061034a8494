package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;

/**
 * Java values to librdmacm's structs and back, byte for byte as C lays them out: sockaddr_in /
 * sockaddr_in6 in network byte order, rdma_conn_param and rdma_ud_param with their private data
 * copied out (so it outlives rdma_ack_cm_event, which frees it).
 */
class RdmacmStructsTest {

    @Test
    void anIpv4SockaddrIsFamilyTwoThenPortAndAddressInNetworkOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = RdmacmStructs.sockaddr(arena, new InetSocketAddress(InetAddress.getByName("10.0.2.15"), 7174));
            assertThat(s.byteSize()).isEqualTo(16);
            assertThat(s.asSlice(0, 8).toArray(JAVA_BYTE))
                    .containsExactly(2, 0, 0x1C, 0x06, 10, 0, 2, 15);   // AF_INET little-endian, htons(7174), the address
            assertThat(storage(arena, s)).isEqualTo(new InetSocketAddress(InetAddress.getByName("10.0.2.15"), 7174));
        }
    }

    @Test
    void anIpv6SockaddrKeepsItsAddressPortAndScope() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetAddress ip = InetAddress.getByName("fd00::2");
            MemorySegment s = RdmacmStructs.sockaddr(arena, new InetSocketAddress(ip, 65535));
            assertThat(s.byteSize()).isEqualTo(28);
            assertThat(s.asSlice(0, 4).toArray(JAVA_BYTE)).containsExactly(10, 0, (byte) 0xFF, (byte) 0xFF);
            assertThat(s.asSlice(8, 16).toArray(JAVA_BYTE)).containsExactly(ip.getAddress());
            assertThat(storage(arena, s)).isEqualTo(new InetSocketAddress(ip, 65535));
        }
    }

    @Test
    void anUnsetSockaddrIsNoAddress() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(RdmacmStructs.inetSocketAddress(arena.allocate(RdmacmLayouts.SOCKADDR_STORAGE))).isNull();
            assertThat(RdmacmStructs.sockaddr(arena, null)).isEqualTo(MemorySegment.NULL);
        }
    }

    /** A sockaddr as librdmacm stores it: at the start of a sockaddr_storage. */
    private static InetSocketAddress storage(Arena arena, MemorySegment sockaddr) {
        MemorySegment storage = arena.allocate(RdmacmLayouts.SOCKADDR_STORAGE);
        storage.copyFrom(sockaddr);
        return RdmacmStructs.inetSocketAddress(storage);
    }

    @Test
    void aConnParamIsWrittenAsRdmaConnParamAndReadBackEqual() {
        ConnParam param = new ConnParam(new byte[] {1, 2, 3}, 4, 5, 1, 6, 7, true, 0xABCDEF);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment c = RdmacmStructs.connParam(arena, param);
            var l = RdmacmLayouts.RDMA_CONN_PARAM;
            assertThat(c.asSlice(Layouts.offset(l, "private_data_len"), 7).toArray(JAVA_BYTE))
                    .containsExactly(3, 4, 5, 1, 6, 7, 1);
            assertThat(c.get(JAVA_INT, Layouts.offset(l, "qp_num"))).isEqualTo(0xABCDEF);
            assertThat(RdmacmStructs.readConnParam(c)).isEqualTo(param);
            assertThat(RdmacmStructs.connParam(arena, null)).isEqualTo(MemorySegment.NULL);
        }
    }

    @Test
    void privateDataReadFromAnEventIsACopyThatOutlivesTheNativeEvent() {
        byte[] read;
        try (Arena event = Arena.ofConfined()) {
            MemorySegment c = RdmacmStructs.connParam(event, ConnParam.of(new byte[] {9, 8, 7}));
            ConnParam copied = RdmacmStructs.readConnParam(c);
            c.get(ADDRESS, 0).reinterpret(3).fill((byte) 0);   // what a later event could leave there
            read = copied.privateData();
        }
        assertThat(read).containsExactly(9, 8, 7);
    }

    @Test
    void aUdParamIsReadWithItsAddressVectorQpnAndQkey() {
        try (Arena arena = Arena.ofConfined()) {
            var l = RdmacmLayouts.RDMA_UD_PARAM;
            MemorySegment u = arena.allocate(l);
            AhAttr ah = new AhAttr(Gid.of(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF, 10, 0, 2, 16}),
                    1, 0, 64, 0, 0, 1);
            IbvPd.writeAhAttr(u.asSlice(Layouts.offset(l, "ah_attr"), Layouts.IBV_AH_ATTR), ah);
            u.set(JAVA_INT, Layouts.offset(l, "qp_num"), 0x123456);
            u.set(JAVA_INT, Layouts.offset(l, "qkey"), UdParam.RDMA_UDP_QKEY);
            u.set(ADDRESS, Layouts.offset(l, "private_data"), arena.allocateFrom(JAVA_BYTE, (byte) 42, (byte) 43));
            u.set(JAVA_BYTE, Layouts.offset(l, "private_data_len"), (byte) 2);
            assertThat(RdmacmStructs.readUdParam(u)).isEqualTo(new UdParam(new byte[] {42, 43}, ah, 0x123456, 0x01234567));
        }
    }
}
