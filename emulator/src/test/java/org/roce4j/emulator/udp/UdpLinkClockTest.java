package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.emulator.fabric.VirtualClock;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/** The UDP link reads the time only from the clock it was given (DESIGN.md §3.6), its capture's timestamps too. */
@Timeout(60)
class UdpLinkClockTest {
    /** 2001-09-09T01:46:40.123456789Z: no wall clock of today reads this. */
    private static final long INJECTED_NANOS = 1_000_000_000_123_456_789L;

    @Test
    @DisplayName("the capture of a frame sent to itself and received back is stamped with the injected clock, "
            + "not the wall clock")
    void captureTimestampsComeFromTheInjectedClock(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("clock.pcap");
        CountDownLatch received = new CountDownLatch(1);
        UdpLink link = new UdpLink(LinkAddresses.resolve("127.0.20.1"), UdpLinkConfig.DEFAULT,
                new VirtualClock(INJECTED_NANOS), Runnable::run);
        try (link) {
            link.attached((buffer, ipOffset, bthOffset, end, icrc) -> received.countDown());
            link.tap(pcap);
            link.start();
            byte[] frame = ipv4Frame(new byte[] {127, 0, 20, 1}, 16);
            link.transmit(frame, 0, frame.length);
            assertThat(received.await(10, TimeUnit.SECONDS)).as("the datagram came back").isTrue();
        }
        List<Long> stamps = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(pcap)) {
            for (PcapRecord record : reader) {
                stamps.add(record.timestampNanos());
            }
        }
        assertThat(stamps).as("sent, then received").containsExactly(INJECTED_NANOS, INJECTED_NANOS);
    }

    /** Ethernet, IPv4 from and to {@code address}, UDP to 4791 and {@code payload} zero bytes (a BTH's worth and more). */
    private static byte[] ipv4Frame(byte[] address, int payload) {
        byte[] frame = new byte[14 + 20 + 8 + payload];
        frame[12] = 0x08;
        int ip = 14;
        frame[ip] = 0x45;
        frame[ip + 9] = 17;
        System.arraycopy(address, 0, frame, ip + 12, 4);
        System.arraycopy(address, 0, frame, ip + 16, 4);
        return frame;
    }
}
