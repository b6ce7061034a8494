package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.GidEntry;
import org.roce4j.verbs.GidType;

/** ibv_query_gid_ex and ibv_query_gid_table, and the GID-index lookup by address every RoCE program makes. */
@ExtendWith(Backend.Resolver.class)
class GidTableTest {
    private final Backend backend;

    GidTableTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("ibv_query_gid_table: every valid entry once, by index, each what ibv_query_gid and ibv_query_gid_ex give; RoCE v2")
    void gidTableListsTheValidEntries() throws SocketException {
        try (Context context = backend.firstDevice().open()) {
            List<GidEntry> table = context.queryGidTable();

            assertThat(table).extracting(GidEntry::gidIndex).contains(Endpoint.GID_INDEX).isSorted().doesNotHaveDuplicates();
            for (GidEntry entry : table) {
                assertThat(entry.portNum()).isEqualTo(Endpoint.PORT);
                assertThat(entry.gid()).isEqualTo(context.queryGid(entry.portNum(), entry.gidIndex()));
                assertThat(context.queryGidEx(entry.portNum(), entry.gidIndex())).isEqualTo(entry);
                assertThat(context.queryGidType(entry.portNum(), entry.gidIndex())).isEqualTo(GidType.ROCE_V2);
                if (entry.ndevIfindex() != 0) {
                    assertThat(NetworkInterface.getByIndex(entry.ndevIfindex()))
                            .as("ndev_ifindex %d is an interface of this host", entry.ndevIfindex()).isNotNull();
                }
            }
        }
    }

    @Test
    @DisplayName("ibv_query_gid_ex: an index past gid_tbl_len or port 0 is EINVAL, an empty entry inside the table ENODATA")
    void queryGidExErrors() {
        try (Context context = backend.firstDevice().open()) {
            int length = context.queryPort(Endpoint.PORT).gidTblLen();
            int lastIndex = length - 1;
            assertThat(context.queryGidTable()).extracting(GidEntry::gidIndex).doesNotContain(lastIndex);

            Expect.errno(Errno.EINVAL, () -> context.queryGidEx(Endpoint.PORT, length));
            Expect.errno(Errno.EINVAL, () -> context.queryGidEx(0, Endpoint.GID_INDEX));
            Expect.errno(Errno.ENODATA, () -> context.queryGidEx(Endpoint.PORT, lastIndex));
        }
    }

    @Test
    @DisplayName("the GID index of an address and RoCE version: the IPv4-mapped entry for its IPv4 address, none for RoCE v1 or another address")
    void findGidIndexByAddress() throws Exception {
        try (Context context = backend.firstDevice().open()) {
            Gid gid = context.queryGid(Endpoint.PORT, Endpoint.GID_INDEX);
            InetAddress address = gid.toInetAddress();

            assertThat(context.findGidIndex(Endpoint.PORT, address, GidType.ROCE_V2)).hasValue(Endpoint.GID_INDEX);
            assertThat(context.findGidIndex(Endpoint.PORT, address, GidType.ROCE_V1)).isEmpty();
            assertThat(context.findGidIndex(Endpoint.PORT, InetAddress.getByName("192.0.2.99"), GidType.ROCE_V2))
                    .as("TEST-NET-1, on no device").isEmpty();
        }
    }
}
