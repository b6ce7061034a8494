package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/** The receive-side ICRC policy of the UDP link (see ReceivedIcrc). */
class ReceivedIcrcTest {
    private static final long SEED = 0x1C2C;

    /** Makes the header a socket receiver would write: Identification 0, DF, TTL and TOS unknown. */
    private static void asSeenBySocket(byte[] f, int ip) {
        f[ip + 1] = 0;
        f[ip + 4] = 0;
        f[ip + 5] = 0;
        f[ip + 6] = 0x40;
        f[ip + 7] = 0;
        f[ip + 8] = 64;
    }

    @Test
    @DisplayName("Every IPv4 Identification is recovered exactly, with DF set or clear; random corruption is caught "
            + "(seed " + SEED + ")")
    void recoversIdentification() {
        SplittableRandom random = new SplittableRandom(SEED);
        ReceivedIcrc check = new ReceivedIcrc();
        int caught = 0;
        for (int n = 0; n < 2000; n++) {
            int length = 20 + 8 + 12 + 4 * random.nextInt(0, 300) + 4;
            byte[] f = new byte[length];
            for (int i = 28; i < length - 4; i++) {
                f[i] = (byte) random.nextInt();
            }
            f[0] = 0x45;
            f[2] = (byte) (length >>> 8);
            f[3] = (byte) length;
            int id = random.nextInt(0x10000);
            boolean df = random.nextBoolean();
            f[4] = (byte) (id >>> 8);
            f[5] = (byte) id;
            f[6] = (byte) (df ? 0x40 : 0);
            f[9] = 17;
            f[12] = 127;
            f[15] = 1;
            f[16] = 127;
            f[19] = 2;
            f[28 + 1] = 0; // TVer 0
            new IcrcCalculator().fill(f, 0, length - 4);
            byte[] seen = f.clone();
            asSeenBySocket(seen, 0);
            ReceivedIcrc.Verdict verdict = check.check(seen, 0, length - 4);
            assertThat(verdict).as("id %04x df %s", id, df)
                    .isEqualTo(id == 0 && df ? ReceivedIcrc.Verdict.VALID : ReceivedIcrc.Verdict.VALID_ID_RECOVERED);
            assertThat((seen[4] & 0xFF) << 8 | seen[5] & 0xFF).isEqualTo(id);
            assertThat(seen[6]).isEqualTo(f[6]);

            byte[] corrupt = f.clone();
            asSeenBySocket(corrupt, 0);
            int at;
            do {
                at = 28 + random.nextInt(length - 28); // BTH to ICRC, but not BTH byte 4, which the ICRC masks
            } while (at == 32);
            corrupt[at] ^= (byte) (1 << random.nextInt(8));
            if (check.check(corrupt, 0, length - 4) == ReceivedIcrc.Verdict.INVALID) {
                caught++;
            }
        }
        assertThat(caught).as("corrupt frames caught of 2000 (a 2^-15 chance each to slip)").isGreaterThanOrEqualTo(1998);
    }

    @Test
    @DisplayName("IPv6: the full 32-bit check, a flipped bit is always INVALID")
    void ipv6IsAlwaysVerified() {
        byte[] f = new byte[40 + 8 + 12 + 64 + 4];
        f[0] = 0x60;
        f[4] = 0;
        f[5] = (byte) (8 + 12 + 64 + 4);
        f[6] = 17;
        f[23] = 1;
        f[39] = 1;
        new IcrcCalculator().fill(f, 0, f.length - 4);
        ReceivedIcrc check = new ReceivedIcrc();
        assertThat(check.check(f.clone(), 0, f.length - 4)).isEqualTo(ReceivedIcrc.Verdict.VALID);
        f[70] ^= 4;
        assertThat(check.check(f, 0, f.length - 4)).isEqualTo(ReceivedIcrc.Verdict.INVALID);
    }

    @Test
    @DisplayName("Every RoCEv2 frame of the Linux Soft-RoCE reference captures is accepted as a socket would see it, "
            + "and the Identification rxe sent is the one recovered")
    void linuxRxeFramesAreNeverRejected() throws IOException {
        Path dir = Path.of(System.getProperty("roce4j.repo.root", ".")).resolveSibling("shared").resolve("reference-pcaps");
        assumeTrue(Files.isDirectory(dir), "no reference captures at " + dir);
        ReceivedIcrc check = new ReceivedIcrc();
        PacketInfo info = new PacketInfo();
        int frames = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".pcap")).sorted().toList()) {
                try (PcapReader reader = PcapReader.open(file)) {
                    for (PcapRecord record : reader) {
                        byte[] frame = record.data();
                        if (!info.parseFrame(frame, 0, frame.length) || info.ipVersion() != 4) {
                            continue;
                        }
                        int ip = info.ipOffset();
                        int id = (frame[ip + 4] & 0xFF) << 8 | frame[ip + 5] & 0xFF;
                        int flags = frame[ip + 6] & 0xFF;
                        asSeenBySocket(frame, ip);
                        ReceivedIcrc.Verdict verdict = check.check(frame, ip, info.icrcOffset());
                        assertThat(verdict).as(file.getFileName() + " frame " + frames).isNotEqualTo(ReceivedIcrc.Verdict.INVALID);
                        assertThat((frame[ip + 4] & 0xFF) << 8 | frame[ip + 5] & 0xFF).isEqualTo(id);
                        assertThat(frame[ip + 6] & 0xFF).isEqualTo(flags);
                        frames++;
                    }
                }
            }
        }
        assertThat(frames).as("rxe frames checked").isGreaterThan(100);
    }
}
