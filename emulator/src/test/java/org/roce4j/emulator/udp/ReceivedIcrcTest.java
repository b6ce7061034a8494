package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.testing.RequiredInCi;
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

    private static final long SECOND = 1_000_000_000L;

    /** A valid IPv4 RoCEv2 packet (no Ethernet header) from 127.0.0.1 with Identification {@code id}. */
    static byte[] frame(SplittableRandom random, int id, boolean df) {
        return frame(random, id, df, 0x7F000001);
    }

    /** The same from {@code source}. */
    private static byte[] frame(SplittableRandom random, int id, boolean df, int source) {
        int length = 20 + 8 + 12 + 4 * random.nextInt(0, 300) + 4;
        byte[] f = new byte[length];
        for (int i = 28; i < length - 4; i++) {
            f[i] = (byte) random.nextInt();
        }
        f[0] = 0x45;
        f[2] = (byte) (length >>> 8);
        f[3] = (byte) length;
        f[4] = (byte) (id >>> 8);
        f[5] = (byte) id;
        f[6] = (byte) (df ? 0x40 : 0);
        f[9] = 17;
        f[12] = (byte) (source >>> 24);
        f[13] = (byte) (source >>> 16);
        f[14] = (byte) (source >>> 8);
        f[15] = (byte) source;
        f[16] = 127;
        f[19] = 2;
        f[28 + 1] = 0; // TVer 0
        new IcrcCalculator().fill(f, 0, length - 4);
        return f;
    }

    /** What the link hands the check: the frame as a socket receiver rebuilds it. */
    private static byte[] seen(byte[] frame) {
        byte[] copy = frame.clone();
        asSeenBySocket(copy, 0);
        return copy;
    }

    private static int id(byte[] f) {
        return (f[4] & 0xFF) << 8 | f[5] & 0xFF;
    }

    private static ReceivedIcrc.Verdict check(ReceivedIcrc check, byte[] frame, long nowNanos) {
        return check.check(frame, 0, frame.length - 4, nowNanos);
    }

    @Test
    @DisplayName("First contact: every IPv4 Identification is recovered exactly, with DF set or clear; random "
            + "corruption is caught (seed " + SEED + ")")
    void recoversIdentification() {
        SplittableRandom random = new SplittableRandom(SEED);
        ReceivedIcrc check = new ReceivedIcrc();
        ReceivedIcrc firstContact = new ReceivedIcrc();
        int caught = 0;
        for (int n = 0; n < 2000; n++) {
            int id = random.nextInt(0x10000);
            boolean df = random.nextBoolean();
            // A new sender each time (the table keeps 64, the oldest make way): nothing is known of it.
            byte[] f = frame(random, id, df, 0x0A000000 + 2 * n);
            byte[] seen = seen(f);
            ReceivedIcrc.Verdict verdict = check(check, seen, 0);
            assertThat(verdict).as("id %04x df %s", id, df)
                    .isEqualTo(id == 0 && df ? ReceivedIcrc.Verdict.VALID : ReceivedIcrc.Verdict.VALID_ID_RECOVERED);
            assertThat(id(seen)).isEqualTo(id);
            assertThat(seen[6]).isEqualTo(f[6]);

            byte[] corrupt = seen(f);
            int at;
            do {
                at = 28 + random.nextInt(f.length - 28); // BTH to ICRC, but not BTH byte 4, which the ICRC masks
            } while (at == 32);
            corrupt[at] ^= (byte) (1 << random.nextInt(8));
            if (check(firstContact, corrupt, 0) == ReceivedIcrc.Verdict.INVALID) { // a sender it does not know either
                caught++;
            }
        }
        assertThat(caught).as("corrupt frames caught of 2000 on first contact (a 2^-15 chance each to slip)")
                .isGreaterThanOrEqualTo(1998);
    }

    @Test
    @DisplayName("A frame whose ICRC matches only for an Identification far from the sender's last one (what a "
            + "corruption that slips the 16-bit search looks like) is dropped: ID_OUTSIDE_WINDOW, header untouched")
    void farIdentificationIsRejected() {
        SplittableRandom random = new SplittableRandom(SEED + 1);
        ReceivedIcrc check = new ReceivedIcrc();
        assertThat(check(check, seen(frame(random, 0x7000, true)), 0)).isEqualTo(ReceivedIcrc.Verdict.VALID_ID_RECOVERED);

        byte[] far = seen(frame(random, 0x7000 + 30000, true));
        assertThat(check(check, far, 1000)).isEqualTo(ReceivedIcrc.Verdict.ID_OUTSIDE_WINDOW);
        assertThat(id(far)).isZero();
        // DF clear where the sender sends DF: outside too, even one step on.
        assertThat(check(check, seen(frame(random, 0x7001, false)), 2000)).isEqualTo(ReceivedIcrc.Verdict.ID_OUTSIDE_WINDOW);
        // The sender's own sequence is still accepted.
        assertThat(check(check, seen(frame(random, 0x7001, true)), 3000)).isEqualTo(ReceivedIcrc.Verdict.VALID_ID_RECOVERED);
    }

    @Test
    @DisplayName("Inside the window: the next Identifications, a gap of up to 256 unseen datagrams, a little "
            + "reordering and duplicates; 257 + 1 on at once is outside")
    void windowFollowsTheSequence() {
        SplittableRandom random = new SplittableRandom(SEED + 2);
        ReceivedIcrc check = new ReceivedIcrc();
        int base = 0xFFF0; // wraps through 0
        assertThat(check(check, seen(frame(random, base, true)), 0)).isNotEqualTo(ReceivedIcrc.Verdict.INVALID);
        int[] ids = {base + 1, base + 3, base + 2, base + 3, base + 3 + IdentificationWindow.BASE_WINDOW,
                     base + 3 + IdentificationWindow.BASE_WINDOW - IdentificationWindow.BEHIND};
        for (int id : ids) {
            byte[] f = seen(frame(random, id & 0xFFFF, true));
            assertThat(check(check, f, 0)).as("id %04x", id & 0xFFFF).isIn(ReceivedIcrc.Verdict.VALID,
                    ReceivedIcrc.Verdict.VALID_ID_RECOVERED);
            assertThat(id(f)).isEqualTo(id & 0xFFFF);
        }
        int last = base + 3 + IdentificationWindow.BASE_WINDOW;
        assertThat(check(check, seen(frame(random, (last + IdentificationWindow.BASE_WINDOW + 1) & 0xFFFF, true)), 0))
                .isEqualTo(ReceivedIcrc.Verdict.ID_OUTSIDE_WINDOW);
        assertThat(check(check, seen(frame(random, (last - IdentificationWindow.BEHIND - 1) & 0xFFFF, true)), 0))
                .isEqualTo(ReceivedIcrc.Verdict.ID_OUTSIDE_WINDOW);
    }

    @Test
    @DisplayName("Idle time widens the window by 1000 Identifications a second (Linux's idle jump is below the "
            + "jiffies elapsed, HZ <= 1000): +2000 is accepted 2 s later, not at once")
    void idleWidensTheWindow() {
        SplittableRandom random = new SplittableRandom(SEED + 3);
        byte[] first = frame(random, 100, true);
        byte[] jumped = frame(random, 100 + 2000, true);

        ReceivedIcrc late = new ReceivedIcrc();
        check(late, seen(first), 5 * SECOND);
        assertThat(check(late, seen(jumped), 7 * SECOND)).isEqualTo(ReceivedIcrc.Verdict.VALID_ID_RECOVERED);

        ReceivedIcrc soon = new ReceivedIcrc();
        check(soon, seen(first), 5 * SECOND);
        assertThat(check(soon, seen(jumped), 5 * SECOND + 1_000_000)).isEqualTo(ReceivedIcrc.Verdict.ID_OUTSIDE_WINDOW);
    }

    @Test
    @DisplayName("Resync: a frame outside the window is dropped, and the sender's next frame in its window confirms "
            + "it (ID_RESYNCED, accepted); from then on the new sequence is the window")
    void nextFrameConfirmsAJump() {
        SplittableRandom random = new SplittableRandom(SEED + 4);
        ReceivedIcrc check = new ReceivedIcrc();
        check(check, seen(frame(random, 5, true)), 0);

        assertThat(check(check, seen(frame(random, 40000, true)), 10)).isEqualTo(ReceivedIcrc.Verdict.ID_OUTSIDE_WINDOW);
        // The same Identification again (a duplicate) confirms nothing.
        assertThat(check(check, seen(frame(random, 40000, true)), 20)).isEqualTo(ReceivedIcrc.Verdict.ID_OUTSIDE_WINDOW);
        byte[] confirming = seen(frame(random, 40002, true));
        assertThat(check(check, confirming, 30)).isEqualTo(ReceivedIcrc.Verdict.ID_RESYNCED);
        assertThat(id(confirming)).isEqualTo(40002);
        assertThat(check(check, seen(frame(random, 40003, true)), 40)).isEqualTo(ReceivedIcrc.Verdict.VALID_ID_RECOVERED);
        assertThat(check(check, seen(frame(random, 6, true)), 50)).isEqualTo(ReceivedIcrc.Verdict.ID_OUTSIDE_WINDOW);
    }

    @Test
    @DisplayName("A roce4j sender (Identification 0, DF) is VALID every time, and its window is 0's: a frame "
            + "matching only Identification 30000 is dropped")
    void constantIdentificationSender() {
        SplittableRandom random = new SplittableRandom(SEED + 5);
        ReceivedIcrc check = new ReceivedIcrc();
        for (int i = 0; i < 10; i++) {
            assertThat(check(check, seen(frame(random, 0, true)), i)).isEqualTo(ReceivedIcrc.Verdict.VALID);
        }
        assertThat(check(check, seen(frame(random, 30000, true)), 20)).isEqualTo(ReceivedIcrc.Verdict.ID_OUTSIDE_WINDOW);
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
        assertThat(check(check, f.clone(), 0)).isEqualTo(ReceivedIcrc.Verdict.VALID);
        f[70] ^= 4;
        assertThat(check(check, f, 0)).isEqualTo(ReceivedIcrc.Verdict.INVALID);
    }

    @Test
    @DisplayName("Every RoCEv2 frame of the Linux Soft-RoCE reference captures is accepted as a socket would see it, "
            + "in order, at its capture time, each inside its sender's window (none outside, none resynced), and "
            + "the Identification rxe sent is the one recovered")
    void linuxRxeFramesAreNeverRejected() throws IOException {
        Path dir = Path.of(System.getProperty("roce4j.repo.root", ".")).resolveSibling("shared").resolve("reference-pcaps");
        RequiredInCi.require(Files.isDirectory(dir), "the reference captures at " + dir);
        PacketInfo info = new PacketInfo();
        int frames = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".pcap")).sorted().toList()) {
                ReceivedIcrc check = new ReceivedIcrc(); // a capture is one run: its own senders
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
                        ReceivedIcrc.Verdict verdict = check.check(frame, ip, info.icrcOffset(), record.timestampNanos());
                        assertThat(verdict).as(file.getFileName() + " frame " + frames)
                                .isIn(ReceivedIcrc.Verdict.VALID, ReceivedIcrc.Verdict.VALID_ID_RECOVERED);
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
