package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.Ipv6Header;

/** The small text formats decode's lines are made of. */
class FormattingTest {

    @ParameterizedTest(name = "RFC 5952: {0} is written {1}")
    @CsvSource({
        "2001:0db8:0000:0000:0000:0000:0000:0001, 2001:db8::1",
        "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",      // §4.2.3: the first of two equal runs
        "2001:0:0:1:0:0:0:1, 2001:0:0:1::1",            // §4.2.3: the longest run
        "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",   // §4.2.2: one zero group stays
        "0:0:0:0:0:0:0:0, ::",
        "0:0:0:0:0:0:0:1, ::1",
        "fe80:0:0:0:0:0:0:0, fe80::",
        "2001:DB8:AB:0:0:0:0:CDEF, 2001:db8:ab::cdef",  // §4.3: lower case, no leading zeros
        "::ffff:c000:0201, ::ffff:192.0.2.1",           // §5: IPv4-mapped
    })
    void ipv6AddressesInCanonicalForm(String address, String expected) {
        assertThat(AddressText.of(Ipv6Header.parseAddress(address))).isEqualTo(expected);
    }

    @Test
    @DisplayName("IPv4 addresses are dotted quads")
    void ipv4Addresses() throws Exception {
        assertThat(AddressText.of(InetAddress.getByName("192.168.77.3"))).isEqualTo("192.168.77.3");
    }

    @ParameterizedTest(name = "AETH syndrome 0x{0} reads \"{1}\"")
    @CsvSource(delimiter = '|', value = {
        "1f | ACK credits=31",
        "00 | ACK credits=0",
        "20 | RNR NAK timer=0 (655.36 ms)",   // IBTA table 45: code 0 is the longest delay
        "21 | RNR NAK timer=1 (0.01 ms)",
        "3f | RNR NAK timer=31 (491.52 ms)",
        "60 | NAK PSN Sequence Error",
        "61 | NAK Invalid Request",
        "62 | NAK Remote Access Error",
        "63 | NAK Remote Operational Error",
        "64 | NAK Invalid RD Request",
        "65 | NAK reserved code=5",           // table 44: codes 5-31 are reserved
        "40 | reserved syndrome=0x40",        // type 10b is reserved
        "80 | reserved syndrome=0x80",        // bit 7 is reserved
    })
    void aethSyndromes(String syndrome, String expected) {
        assertThat(HeaderText.syndrome(AethSyndrome.decode(Integer.parseInt(syndrome, 16)))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} ns relative to the first frame is {1} s")
    @CsvSource({"0, 0.000000000", "1, 0.000000001", "1500000000, 1.500000000", "-2000, -0.000002000",
                "86400000000000, 86400.000000000"})
    void relativeTimes(long nanos, String expected) {
        assertThat(FramePrinter.seconds(nanos)).isEqualTo(expected);
    }

    @Test
    @DisplayName("hex dump: 16 bytes a line, a gap after 8, unprintable bytes as '.', at most the bytes asked for")
    void hexDump() {
        byte[] bytes = "Hello, RoCE!\n\u0000\u007f~ab".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);

        assertThat(HexDump.lines(bytes, 64)).containsExactly(
                "0000  48 65 6c 6c 6f 2c 20 52  6f 43 45 21 0a 00 7f 7e  Hello, RoCE!...~",
                "0010  61 62                                             ab");
        assertThat(HexDump.lines(bytes, 4)).containsExactly(
                "0000  48 65 6c 6c                                       Hell");
    }
}
