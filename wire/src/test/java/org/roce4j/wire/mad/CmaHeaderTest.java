package org.roce4j.wire.mad;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** rdma_cm's struct cma_hdr (Linux cma.c) at the start of a REQ's and SIDR_REQ's private data. */
class CmaHeaderTest {

    @Test
    @DisplayName("cma.c cma_format_hdr: version 0, IP version 4 in the high nibble, port, IPv4 in the last 4 of 16 bytes")
    void ipv4Layout() throws Exception {
        byte[] buf = new byte[CmaHeader.LENGTH];
        Arrays.fill(buf, (byte) 0xEE);
        new CmaHeader(40001, InetAddress.getByName("10.0.0.1"), InetAddress.getByName("10.0.0.2")).encode(buf, 0);
        assertThat(HexFormat.of().formatHex(buf)).isEqualTo("00409c41" + "000000000000000000000000" + "0a000001"
                + "000000000000000000000000" + "0a000002");
    }

    @Test
    @DisplayName("cma.c: an IPv6 header carries version 6 and both 16-byte addresses")
    void ipv6Layout() throws Exception {
        byte[] buf = new byte[CmaHeader.LENGTH];
        CmaHeader header = new CmaHeader(0x1234, InetAddress.getByName("fe80::1"), InetAddress.getByName("2001:db8::2"));
        header.encode(buf, 0);
        assertThat(HexFormat.of().formatHex(buf)).isEqualTo("00601234" + "fe800000000000000000000000000001"
                + "20010db8000000000000000000000002");
        assertThat(header.ipVersion()).isEqualTo(6);
    }

    @Test
    @DisplayName("Every field survives encode → decode, IPv4 and IPv6 (an ::ffff: address stays IPv6)")
    void roundTrips() {
        qt().withExamples(1_000).forAll(longs().all()).checkAssert(seed -> {
            Random r = new Random(seed);
            boolean v4 = r.nextBoolean();
            CmaHeader header = new CmaHeader(r.nextInt(0x10000), address(r, v4), address(r, v4));
            byte[] buf = new byte[CmaHeader.LENGTH + 3];
            header.encode(buf, 3);
            assertThat(CmaHeader.decode(buf, 3, CmaHeader.LENGTH)).contains(header);
        });
    }

    @Test
    @DisplayName("cma.c cma_save_ip_info: another cma_version is EINVAL, an IP version not 4 or 6 EAFNOSUPPORT: no header")
    void headersRdmaCmRefusesDecodeAsEmpty() throws Exception {
        byte[] buf = new byte[CmaHeader.LENGTH];
        new CmaHeader(1, InetAddress.getByName("10.0.0.1"), InetAddress.getByName("10.0.0.2")).encode(buf, 0);
        assertThat(CmaHeader.decode(buf, 0, buf.length)).isPresent();
        assertThat(CmaHeader.decode(buf, 0, buf.length - 1)).as("35 bytes").isEmpty();
        assertThat(CmaHeader.decode(buf, 1, buf.length)).as("past the buffer").isEmpty();
        byte[] room = new byte[40];
        System.arraycopy(buf, 0, room, 5, 35); // a valid header's start 5 bytes in: 36 bytes do not fit there
        assertThat(CmaHeader.decode(room, 5, CmaHeader.LENGTH)).as("36 bytes at 5 of 40").isEmpty();
        byte[] version1 = buf.clone();
        version1[0] = 1;
        assertThat(CmaHeader.decode(version1, 0, buf.length)).isEmpty();
        byte[] ip5 = buf.clone();
        ip5[1] = 0x50;
        assertThat(CmaHeader.decode(ip5, 0, buf.length)).isEmpty();
    }

    @Test
    @DisplayName("Source and destination of different IP versions are refused")
    void mixedVersionsAreRefused() {
        assertThatThrownBy(() -> new CmaHeader(1, InetAddress.getByName("10.0.0.1"), InetAddress.getByName("::1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static InetAddress address(Random r, boolean v4) {
        try {
            return v4 ? InetAddress.getByAddress(CmGenerators.bytes(r, 4))
                    : Inet6Address.getByAddress(null, CmGenerators.bytes(r, 16), -1);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
