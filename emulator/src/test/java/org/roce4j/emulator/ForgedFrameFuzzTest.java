package org.roce4j.emulator;

import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.emulator.verbs.DeviceLimits;
import org.roce4j.emulator.verbs.KeySource;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;

import org.roce4j.emulator.TwoNodes.Side;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.udp.UdpRnic;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.MacAddress;

/**
 * A fuzzing sender with the peer's address ({@link FrameFuzzer}): random and mutated-valid frames,
 * each with a correct ICRC, at a live RC and UC QP of node B, which expects them from A. In bulk
 * (100,000) on the deterministic fabric with keys and QPNs in the random layout (seeded), and a
 * smaller run (10,000) over the UDP link on loopback, sent from a socket bound to A's IP address.
 * After every frame: B's memory against the image of the real peer's writes, and exceptions out of
 * the RNIC; every 1,000 frames the real peer WRITEs over RC and UC and the bytes must land.
 * A forged frame that kills a QP (an R_Key violation or invalid request at the expected PSN: fatal,
 * IBTA 9.7.5.2.x / rxe) or that the protocol accepts without a key (a zero-length WRITE or READ at
 * the expected PSN, IBTA 9.4.1.1; a UC start ahead of it) and so moves B's expected PSN is counted,
 * and the pair is connected again. No receive WQE is posted at B: a forged SEND would need one.
 */
@Timeout(120)
class ForgedFrameFuzzTest {
    static final long SEED = Long.getLong("roce4j.fuzz.seed", 0xF022L);
    private static final int REGION = 64 << 10;
    private static final int LEGIT = REGION - 4096; // the real peer writes into the last 4 KiB

    private final Arena arena = Arena.ofShared();
    private final List<AutoCloseable> closing = new java.util.ArrayList<>();

    /** How a forged transport reaches B; returns once B has processed it. */
    private interface Injector {
        void inject(byte[] transport) throws Exception;
    }

    private record Result(int frames, long millis, int written, int escaped, int killed, int psnMoved, int realWrites) {
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
        arena.close();
    }

    @Test
    @DisplayName("Deterministic fabric: 100,000 forged frames with the peer's address and a valid ICRC write nothing, "
            + "throw nothing, and the real peer's WRITEs keep landing (-Droce4j.fuzz.seed= replays)")
    void forgedFramesOnTheFabric() throws Exception {
        Fabric fabric = Fabric.deterministic();
        closing.add(fabric);
        SoftRnic rnicA = node(fabric, "rxe0", "02:00:00:00:00:01", "10.0.0.1", SEED + 1);
        SoftRnic rnicB = node(fabric, "rxe1", "02:00:00:00:00:02", "10.0.0.2", SEED + 2);
        Result r = fuzz(side(rnicA), side(rnicB), 100_000, inject(fabric, rnicB));
        assertThat(r.written()).as("frames after which B's memory differed from the real peer's writes").isZero();
        assertThat(rnicB.counter(RnicCounter.FRAMES_RECEIVED)).isGreaterThanOrEqualTo(100_000);
        // Coverage: the forged frames got as far as the key check and the UC message logic.
        assertThat(rnicB.counter(RnicCounter.NAKS_SENT)).isPositive();
        assertThat(rnicB.counter(RnicCounter.DROPPED_UC_MESSAGE)).isPositive();
        assertThat(rnicB.counter(RnicCounter.DROPPED_PSN_OUT_OF_WINDOW)).isPositive();
        assertThat(r.realWrites()).isEqualTo(2 * 100);
    }

    @Test
    @DisplayName("UDP link on loopback: 10,000 forged datagrams from a socket on the peer's IP write nothing, "
            + "throw nothing, and the real peer's WRITEs keep landing")
    void forgedDatagramsOverUdp() throws Exception {
        UdpRnic udpA = UdpRnic.open("rxe0", "127.0.0.81");
        closing.add(udpA);
        UdpRnic udpB = UdpRnic.open("rxe1", "127.0.0.82");
        closing.add(udpB);
        SoftRnic rnicB = udpB.rnic();
        InetAddress peerIp = InetAddress.ofLiteral("127.0.0.81");
        InetAddress victim = InetAddress.ofLiteral("127.0.0.82");
        DatagramSocket socket = new DatagramSocket(new InetSocketAddress(peerIp, 0)); // the peer's IP, any port
        closing.add(socket);
        ForgedFrames forge = new ForgedFrames(0x7F000051, 0x7F000052, socket.getLocalPort());
        long sendFailuresBefore = udpB.linkCounters().sendFailures();
        Result r = fuzz(side(udpA.rnic()), side(rnicB), 10_000, transport -> {
            long before = rnicB.counter(RnicCounter.FRAMES_RECEIVED);
            byte[] datagram = forge.udpPayload(transport);
            socket.send(new DatagramPacket(datagram, datagram.length, new InetSocketAddress(victim, 4791)));
            awaitReceived(rnicB, before + 1);
        });
        assertThat(r.written()).as("frames after which B's memory differed from the real peer's writes").isZero();
        assertThat(udpB.linkCounters().icrcInvalid()).as("the forged datagrams' ICRCs are right").isZero();
        assertThat(udpB.linkCounters().sendFailures() - sendFailuresBefore).as("exceptions in the link's handler").isZero();
        assertThat(rnicB.counter(RnicCounter.DROPPED_WRONG_ADDRESS)).as("sent from the peer's address").isZero();
        assertThat(r.realWrites()).isEqualTo(2 * 10);
    }

    @Test
    @DisplayName("The measurement can fail: against the counted keys the deterministic fabric uses, the same "
            + "sender's blind guesses (0x101, ...) write into B's memory")
    void theFuzzerFindsCountedKeys() throws Exception {
        Fabric fabric = Fabric.deterministic();
        closing.add(fabric);
        SoftRnic rnicA = SoftRnic.attach(fabric, "rxe0", MacAddress.parse("02:00:00:00:00:01"),
                (Inet4Address) InetAddress.getByName("10.0.0.1"));
        SoftRnic rnicB = SoftRnic.attach(fabric, "rxe1", MacAddress.parse("02:00:00:00:00:02"),
                (Inet4Address) InetAddress.getByName("10.0.0.2"));
        Side b = side(rnicB);
        Side a = side(rnicA);
        assertThat(b.mr.rkey()).isEqualTo(0x101);
        Result r = fuzz(a, b, 5_000, inject(fabric, rnicB));
        assertThat(r.written()).isPositive();
    }

    private static Injector inject(Fabric fabric, SoftRnic rnicB) {
        ForgedFrames forge = new ForgedFrames();
        return transport -> {
            byte[] frame = forge.frame(transport);
            fabric.locked(() -> rnicB.rnic().onFrame(frame, 0, frame.length, 0));
            fabric.runUntilIdle();
        };
    }

    private SoftRnic node(Fabric fabric, String name, String mac, String ip, long keySeed) throws Exception {
        return SoftRnic.builder(fabric).name(name).mac(MacAddress.parse(mac))
                .ipv4((Inet4Address) InetAddress.getByName(ip))
                .keySource(KeySource.random(new SplittableRandom(keySeed), DeviceLimits.RXE.maxQp())).attach();
    }

    private static void awaitReceived(SoftRnic rnic, long count) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (rnic.counter(RnicCounter.FRAMES_RECEIVED) < count) { // read under the fabric lock: processed
            if (System.nanoTime() > deadline) {
                throw new AssertionError("B did not receive frame " + count + "; counters " + rnic.counters());
            }
            Thread.onSpinWait();
        }
    }

    private Side side(SoftRnic rnic) {
        return new Side(rnic, arena, 4096, REGION);
    }

    private static Qp[] pair(Side a, Side b, QpType type) {
        Qp qa = a.createQp(type, 64);
        Qp qb = b.createQp(type, 64);
        TwoNodes.connect(qa, qb.qpNum(), b.context.queryGid(1, 1), 100, 100, Mtu.MTU_256);
        TwoNodes.connect(qb, qa.qpNum(), a.context.queryGid(1, 1), 100, 100, Mtu.MTU_256);
        return new Qp[] {qa, qb};
    }

    private static int expectedPsn(Side b, Qp qp) {
        return b.rnic.rnic().call(() -> ((EmulatedQp) qp).responder.expectedPsn);
    }

    private Result fuzz(Side a, Side b, int frames, Injector injector) throws Exception {
        for (int i = 0; i < REGION; i++) {
            b.memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        MemorySegment image = arena.allocate(REGION);
        image.copyFrom(b.memory);
        Qp[] rc = pair(a, b, QpType.RC);
        Qp[] uc = pair(a, b, QpType.UC);
        SplittableRandom random = new SplittableRandom(SEED);
        FrameFuzzer fuzzer = new FrameFuzzer(random, b.mr.rkey(), b.mr.address(), REGION);

        long started = System.nanoTime();
        int written = 0;
        int escaped = 0;
        int killed = 0;
        int psnMoved = 0;
        int realWrites = 0;
        Throwable firstEscaped = null;
        for (int n = 1; n <= frames; n++) {
            boolean atRc = random.nextBoolean();
            Qp target = atRc ? rc[1] : uc[1];
            int expectedBefore = expectedPsn(b, target);
            byte[] transport = fuzzer.next(target, expectedBefore);
            try {
                injector.inject(transport);
            } catch (Throwable e) {
                escaped++;
                if (firstEscaped == null) {
                    firstEscaped = e;
                }
            }
            if (MemorySegment.mismatch(b.memory, 0, REGION, image, 0, REGION) >= 0) {
                written++;
                image.copyFrom(b.memory);
            }
            boolean dead = target.state() == QpState.ERR;
            boolean moved = !dead && expectedPsn(b, target) != expectedBefore;
            if (dead || moved) {
                if (dead) {
                    killed++;
                } else {
                    psnMoved++;
                }
                Qp[] old = atRc ? rc : uc;
                old[0].close();
                old[1].close();
                if (atRc) {
                    rc = pair(a, b, QpType.RC);
                } else {
                    uc = pair(a, b, QpType.UC);
                }
            }
            a.cq.poll(256); // flushed work of a pair made again, if any
            b.cq.poll(256);
            if (n % 1000 == 0) {
                realWrites += realWrites(a, b, rc, uc, image, n);
            }
        }
        Result result = new Result(frames, (System.nanoTime() - started) / 1_000_000, written, escaped, killed,
                psnMoved, realWrites);
        System.out.printf("forged-frame fuzz on %s, seed %d: %s; B's counters %s%n", b.rnic.fabric().isDeterministic()
                ? "the deterministic fabric" : "the UDP link", SEED, result, b.rnic.counters());
        assertThat(escaped).as("exceptions out of the RNIC, first: %s", firstEscaped).isZero();
        return result;
    }

    /** The real peer's RC and UC WRITE of 64 bytes into B's last 4 KiB: both must land. */
    private int realWrites(Side a, Side b, Qp[] rc, Qp[] uc, MemorySegment image, int n) throws InterruptedException {
        int done = 0;
        for (Qp[] pair : List.of(rc, uc)) {
            long offset = LEGIT + (n / 1000 * 64L) % 2048 + (pair == uc ? 2048 : 0);
            for (int i = 0; i < 64; i++) {
                a.memory.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (n + i + done));
            }
            long received = b.rnic.counter(RnicCounter.FRAMES_RECEIVED);
            pair[0].postSend(SendWr.rdmaWrite(n, a.mr, offset, 64, b.mr.address() + offset, b.mr.rkey()));
            WorkCompletion wc = poll(a);
            assertThat(wc.status()).as("real %s WRITE after %d forged frames", pair[0].type(), n)
                    .isEqualTo(WcStatus.SUCCESS);
            awaitReceived(b.rnic, received + 1); // UC completes at A when sent
            image.asSlice(offset, 64).copyFrom(a.memory.asSlice(offset, 64));
            assertThat(MemorySegment.mismatch(b.memory, offset, offset + 64, a.memory, offset, offset + 64))
                    .as("the real %s WRITE after %d forged frames landed", pair[0].type(), n).isEqualTo(-1L);
            done++;
        }
        return done;
    }

    private static WorkCompletion poll(Side side) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            List<WorkCompletion> one = side.cq.poll(1);
            if (!one.isEmpty()) {
                return one.getFirst();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion; counters " + side.rnic.counters());
            }
            Thread.onSpinWait();
        }
    }
}
