package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The small text formats decode's lines are made of. */
class FrameTextTest {

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
        assertThat(FrameText.address(Ipv6Header.parseAddress(address))).isEqualTo(expected);
    }

    @Test
    @DisplayName("IPv4 addresses are dotted quads")
    void ipv4Addresses() throws Exception {
        assertThat(FrameText.address(InetAddress.getByName("192.168.77.3"))).isEqualTo("192.168.77.3");
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
        assertThat(FrameText.syndrome(AethSyndrome.decode(Integer.parseInt(syndrome, 16)))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} ns relative to the first frame is {1} s")
    @CsvSource({"0, 0.000000000", "1, 0.000000001", "1500000000, 1.500000000", "-2000, -0.000002000",
                "86400000000000, 86400.000000000"})
    void relativeTimes(long nanos, String expected) {
        assertThat(FrameText.seconds(nanos)).isEqualTo(expected);
    }

    @Test
    @DisplayName("summary: addresses, opcode, QP, PSN, each header's key fields and the payload length, for IPv4 and IPv6")
    void summaryOfAWrite() {
        assertThat(FrameText.summary(SampleFrames.ipv4Write())).isEqualTo("192.168.77.3 → 192.168.77.2 RC RDMA Write Only"
                + " QP=0x000011 PSN=0x123456 RETH(va=0x00007f0012340000 rkey=0x00001234 len=13) payload=13");
        assertThat(FrameText.summary(SampleFrames.ipv6Write())).startsWith("fe80::3 → fe80::2 RC RDMA Write Only");
    }
}
