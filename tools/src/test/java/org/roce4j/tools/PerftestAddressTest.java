package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;

/** perftest 6.06's TCP records against the bytes of reference-pcaps/rxe_write_bw.pcap and rxe_write_lat.pcap. */
class PerftestAddressTest {
    /** rxe_write_bw.pcap frame 14, the client's record (tcp.payload). */
    private static final String BW_CLIENT =
            "0000:0001:000011:82f32e:0000029d:0000558eed18d000:00:00:00:00:00:00:00:00:00:00:ff:ff:c0:a8:4d:03:00000000:\0";
    /** rxe_write_lat.pcap frame 15, the server's record. */
    private static final String LAT_SERVER =
            "0000:0001:000011:f168db:000002e7:000056222e88e000:00:00:00:00:00:00:00:00:00:00:ff:ff:c0:a8:4d:02:00000000:\0";

    private static Gid ipv4Mapped(int a, int b, int c, int d) {
        byte[] raw = new byte[16];
        raw[10] = (byte) 0xff;
        raw[11] = (byte) 0xff;
        raw[12] = (byte) a;
        raw[13] = (byte) b;
        raw[14] = (byte) c;
        raw[15] = (byte) d;
        return Gid.of(raw);
    }

    @Test
    @DisplayName("the client record of rxe_write_bw.pcap encodes byte for byte, 108 bytes with the NUL")
    void encodesCapturedRecord() {
        PerftestAddress client = new PerftestAddress(0, 1, 0x11, 0x82f32e, 0x29d, 0x558eed18d000L,
                ipv4Mapped(192, 168, 77, 3), 0);

        assertThat(client.encode()).hasSize(108).isEqualTo(BW_CLIENT.getBytes(US_ASCII));
    }

    @Test
    @DisplayName("the server record of rxe_write_lat.pcap decodes to its fields and back to the same bytes")
    void decodesCapturedRecord() {
        PerftestAddress server = PerftestAddress.decode(LAT_SERVER.getBytes(US_ASCII));

        assertThat(server).isEqualTo(new PerftestAddress(0, 1, 0x11, 0xf168db, 0x2e7, 0x56222e88e000L,
                ipv4Mapped(192, 168, 77, 2), 0));
        assertThat(server.encode()).isEqualTo(LAT_SERVER.getBytes(US_ASCII));
    }

    /** rxe_rping_cm.pcap frame 96 (ib_write_bw -R, client 192.168.77.3 -x 1): the SEND's 56 bytes. */
    private static final String CM_CLIENT = "00000000" + "00000001" + "00000013" + "0034a2a2" + "0000071f" + "00000000"
            + "00005607a5daf000" + "00000000000000000000ffffc0a84d03" + "00000000" + "00000001";
    /** Frame 98, the server's answer. */
    private static final String CM_SERVER = "00000000" + "00000001" + "00000013" + "00f261e6" + "000006b0" + "00000000"
            + "00005648a34f6000" + "00000000000000000000ffffc0a84d02" + "00000000" + "00000001";

    @Test
    @DisplayName("-R sends struct pingpong_dest big-endian: the client record of rxe_rping_cm.pcap frame 96, byte for byte")
    void rdmaCmRecordIsStructPingpongDestBigEndian() {
        PerftestAddress client = new PerftestAddress(0, 1, 0x13, 0x34a2a2, 0x71f, 0x5607a5daf000L,
                ipv4Mapped(192, 168, 77, 3), 0);

        assertThat(client.encodeForRdmaCm(1)).isEqualTo(HexFormat.of().parseHex(CM_CLIENT));
    }

    @Test
    @DisplayName("-R's record read as rdma_read_keys reads it: frame 98's fields, and back to its bytes")
    void rdmaCmRecordDecodesCapturedServer() {
        byte[] captured = HexFormat.of().parseHex(CM_SERVER);
        PerftestAddress server = PerftestAddress.decodeFromRdmaCm(captured);

        assertThat(server).isEqualTo(new PerftestAddress(0, 1, 0x13, 0xf261e6, 0x6b0, 0x5648a34f6000L,
                ipv4Mapped(192, 168, 77, 2), 0));
        assertThat(server.encodeForRdmaCm(1)).isEqualTo(captured);
    }

    @Test
    @DisplayName("-R's syncs around the rdma_cm connect send 56 zero bytes (rxe_rping_cm.pcap frames 85, 87, 92, 94)")
    void rdmaCmSyncRecordIsZeros() {
        assertThat(PerftestAddress.EMPTY.encodeForRdmaCm(0)).isEqualTo(new byte[56]);
    }

    @Test
    @DisplayName("a short rdma_cm record is refused with IllegalArgumentException")
    void rdmaCmShortRecordRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PerftestAddress.decodeFromRdmaCm(new byte[55]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("the fixed parts match the captures: version 16 bytes, MTU '3\\0', cycle buffer and cache line as BE ints")
    void fixedParts() {
        HexFormat hex = HexFormat.of();
        assertThat(PerftestHandshake.versionBytes("6.06")).isEqualTo(hex.parseHex("362e3036000000000000000000000000"));
        assertThat(PerftestHandshake.mtuBytes(Mtu.MTU_1024)).isEqualTo(hex.parseHex("3300"));
        assertThat(java.nio.ByteBuffer.allocate(4).putInt(4096).array()).isEqualTo(hex.parseHex("00001000"));
    }

    @Test
    @DisplayName("addresses print as perftest prints them: %#04x of 0 is 0000, GID bytes in decimal")
    void describe() {
        PerftestAddress client = PerftestAddress.decode(BW_CLIENT.getBytes(US_ASCII));

        assertThat(client.describe("local")).isEqualTo(
                " local address: LID 0000 QPN 0x0011 PSN 0x82f32e RKey 0x00029d VAddr 0x00558eed18d000\n"
                + " GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:77:03");
    }

    @Test
    @DisplayName("READ tests add OUT after the PSN; SEND and atomic tests print no RKey/VAddr; a 5-digit PSN is not padded"
            + " (ib_read_bw and ib_send_bw 6.06 output)")
    void describeByTest() {
        PerftestAddress read = new PerftestAddress(0, 128, 0x11, 0xb7d9a4, 0x22b, 0x0055e13eb71000L,
                ipv4Mapped(192, 168, 77, 2), 0);
        PerftestAddress send = new PerftestAddress(0, 1, 0x11, 0x0496d1, 0, 0x55c3d83d7000L, ipv4Mapped(192, 168, 77, 2), 0);

        assertThat(read.describe("local", true, true)).startsWith(
                " local address: LID 0000 QPN 0x0011 PSN 0xb7d9a4 OUT 0x80 RKey 0x00022b VAddr 0x0055e13eb71000\n GID: ");
        assertThat(send.describe("local", false, false)).isEqualTo(
                " local address: LID 0000 QPN 0x0011 PSN 0x496d1\n GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:77:02");
    }

    @Test
    @DisplayName("version comparison refuses peers older than 5.70")
    void versions() {
        assertThat(PerftestHandshake.compareVersions("6.06", "5.70")).isPositive();
        assertThat(PerftestHandshake.compareVersions("5.60", "5.70")).isNegative();
        assertThat(PerftestHandshake.compareVersions("5.70", "5.70")).isZero();
    }
}
