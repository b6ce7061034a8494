package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.verbs.Gid;
import org.roce4j.wire.pcap.PcapRecord;

/** The 52-byte address record against the bytes two Linux Soft-RoCE pingpongs exchanged. */
class PingpongAddressTest {
    /** The client's and the server's record in reference-pcaps/rxe_rc_pingpong.pcap (frames 4 and 6). */
    private static final String CLIENT_RC = "303030303a3030303031313a6635356235343a3030303030303030303030303030303030303030666666666330613834643033"
            + "00";
    private static final String SERVER_RC = "303030303a3030303031313a6138373331303a3030303030303030303030303030303030303030666666666330613834643032"
            + "00";

    @Test
    @DisplayName("the client record of rxe_rc_pingpong.pcap decodes to LID 0, QPN 0x11, PSN 0xf55b54, GID ::ffff:192.168.77.3 and encodes back byte for byte")
    void referenceRecord() {
        byte[] wire = HexFormat.of().parseHex(CLIENT_RC);

        PingpongAddress address = PingpongAddress.decode(wire);

        assertThat(wire).hasSize(PingpongAddress.LENGTH);
        assertThat(address.lid()).isZero();
        assertThat(address.qpn()).isEqualTo(0x11);
        assertThat(address.psn()).isEqualTo(0xf55b54);
        assertThat(PingpongAddress.gidText(address.gid())).isEqualTo("::ffff:192.168.77.3");
        assertThat(address.encode()).isEqualTo(wire);
        assertThat(PingpongAddress.decode(HexFormat.of().parseHex(SERVER_RC)).encode())
                .isEqualTo(HexFormat.of().parseHex(SERVER_RC));
    }

    @Test
    @DisplayName("encode: %04x:%06x:%06x: then the 16 GID bytes as 32 lower-case hex digits and a NUL, 52 bytes")
    void encode() {
        byte[] record = new PingpongAddress(0xabc, 0x123456, 0xfedcba, Gid.parse("fe80::ff:fe00:2")).encode();

        assertThat(new String(record, US_ASCII)).isEqualTo("0abc:123456:fedcba:fe80000000000000000000fffe000002\0");
        assertThat(PingpongAddress.UNUSED.encode()).isEqualTo(("0000:000000:000000:" + "0".repeat(32) + "\0").getBytes(US_ASCII));
    }

    @Test
    @DisplayName("decode refuses bytes that are not a record")
    void malformed() {
        assertThatThrownBy(() -> PingpongAddress.decode("done\0".getBytes(US_ASCII)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PingpongAddress.decode("0000:00001x:f55b54:00000000000000000000ffffc0a84d03\0".getBytes(US_ASCII)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"::", "::ffff:10.0.0.1", "fe80::ff:fe00:2", "::1", "::1.2.3.4", "2001:db8::1:0:0:1", "fe80::1:1:0:0:1", "fe80:0:0:1::1"})
    @DisplayName("GIDs print as glibc's inet_ntop prints them")
    void gidText(String text) {
        assertThat(PingpongAddress.gidText(Gid.parse(text))).isEqualTo(text);
    }

    @Test
    @DisplayName("%.2f of the results, including glibc's inf and -nan for a zero-length run")
    void results() {
        assertThat(Pingpong.fixed2(1310.7199)).isEqualTo("1310.72");
        assertThat(Pingpong.fixed2(8.0 / 0.0)).isEqualTo("inf");
        assertThat(Pingpong.fixed2(0.0 / 0.0)).isEqualTo("-nan");
    }

    @ParameterizedTest
    @ValueSource(strings = {"rxe_rc_pingpong.pcap", "rxe_ud_pingpong.pcap"})
    @DisplayName("the TCP payloads of the reference captures: record, record, \"done\\0\"; each record round-trips byte for byte")
    void referenceCaptures(String name) throws IOException {
        Path file = TestCaptures.repoRoot().resolveSibling("shared").resolve("reference-pcaps").resolve(name);
        RequiredInCi.require(Files.isRegularFile(file), "the reference capture " + file + " (../shared)");

        List<byte[]> payloads = new ArrayList<>();
        for (PcapRecord record : TestCaptures.read(file)) {
            byte[] payload = tcpPayload(record.data());
            if (payload != null && payload.length > 0) {
                payloads.add(payload);
            }
        }

        assertThat(payloads).extracting(p -> p.length).containsExactly(52, 52, 5);
        assertThat(payloads.get(2)).isEqualTo(PingpongHandshake.DONE);
        for (byte[] record : payloads.subList(0, 2)) {
            assertThat(PingpongAddress.decode(record).encode()).isEqualTo(record);
        }
        assertThat(PingpongAddress.gidText(PingpongAddress.decode(payloads.get(0)).gid())).isEqualTo("::ffff:192.168.77.3");
        assertThat(PingpongAddress.gidText(PingpongAddress.decode(payloads.get(1)).gid())).isEqualTo("::ffff:192.168.77.2");
    }

    /** The payload of an Ethernet/IPv4/TCP frame to or from port 18515, else null. */
    private static byte[] tcpPayload(byte[] frame) {
        if (frame.length < 34 || (frame[12] & 0xFF) != 0x08 || frame[13] != 0 || frame[23] != 6) {
            return null;
        }
        int ip = 14;
        int ipLength = (frame[ip + 2] & 0xFF) << 8 | frame[ip + 3] & 0xFF;
        int tcp = ip + (frame[ip] & 0x0F) * 4;
        int sport = (frame[tcp] & 0xFF) << 8 | frame[tcp + 1] & 0xFF;
        int dport = (frame[tcp + 2] & 0xFF) << 8 | frame[tcp + 3] & 0xFF;
        if (sport != 18515 && dport != 18515) {
            return null;
        }
        int data = tcp + ((frame[tcp + 12] & 0xF0) >> 4) * 4;
        return Arrays.copyOfRange(frame, data, ip + ipLength);
    }
}
