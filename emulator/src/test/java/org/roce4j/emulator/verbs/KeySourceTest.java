package org.roce4j.emulator.verbs;

import org.roce4j.emulator.SoftRnic;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.wire.MacAddress;

/** Memory keys and QP numbers: unpredictable off the deterministic fabric, reproducible on it. */
class KeySourceTest {
    private static final long SEED = 0xC0FFEEL;
    private static final int REMOTE = AccessFlag.LOCAL_WRITE.bit() | AccessFlag.REMOTE_WRITE.bit();

    /** The first rkey and the first QPN of a node attached to {@code fabric}. */
    private static int[] firstKeyAndQpn(Fabric fabric, String mac) throws Exception {
        SoftRnic node = SoftRnic.attach(fabric, "rxe0", MacAddress.parse(mac),
                (Inet4Address) InetAddress.getByName("10.0.0.1"));
        try (Arena arena = Arena.ofShared(); Context context = node.device().open()) {
            Pd pd = context.allocPd();
            Cq cq = context.createCq(4);
            try (Mr mr = pd.regMr(arena.allocate(4096), EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE));
                 Qp qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, new QpCap(4, 4, 1, 1, 0)))) {
                return new int[] {mr.rkey(), qp.qpNum()};
            } finally {
                cq.close();
                pd.close();
            }
        }
    }

    @Test
    @DisplayName("Deterministic fabric: the numbering of every run is the same as it always was (rkey 0x101, QPN 17)")
    void deterministicFabricIsReproducible() throws Exception {
        for (int run = 0; run < 2; run++) {
            try (Fabric fabric = Fabric.deterministic()) {
                assertThat(firstKeyAndQpn(fabric, "02:00:00:00:00:01")).containsExactly(0x101, 17);
            }
        }
    }

    @Test
    @DisplayName("Threaded fabric (and so the UDP link): keys and QPNs come from a SecureRandom, not 0x101 and 17")
    void threadedFabricIsUnpredictable() throws Exception {
        Set<Integer> keys = new HashSet<>();
        Set<Integer> qpns = new HashSet<>();
        for (int run = 0; run < 4; run++) {
            try (Fabric fabric = Fabric.threaded()) {
                int[] first = firstKeyAndQpn(fabric, "02:00:00:00:00:0" + (run + 1));
                keys.add(first[0]);
                qpns.add(first[1]);
                assertThat(first[1]).isBetween(RandomKeySource.LOWEST_QPN, 0xFFFFFE);
            }
        }
        // 2^-32 and about 2^-24 chances of a false failure per pair: the counted numbering fails it every time.
        assertThat(keys).hasSize(4).doesNotContain(0x101, 0);
        assertThat(qpns).hasSize(4).doesNotContain(17);
    }

    @Test
    @DisplayName("Random layout: all 32 key bits vary, key 0 never comes, QPN bases avoid 0, 1 and 0xFFFFFF (seed " + SEED + ")")
    void randomLayoutUsesEveryBit() {
        SplittableRandom seeds = new SplittableRandom(SEED);
        int[] ones = new int[32];
        int n = 20_000;
        KeySource source = KeySource.random(new SplittableRandom(seeds.nextLong()), DeviceLimits.RXE.maxQp());
        Set<Integer> issued = new HashSet<>();
        for (int i = 0; i < n; i++) {
            int key = source.nextMemoryKey(issued::contains);
            assertThat(key).isNotZero();
            assertThat(issued.add(key)).as("never a key in use").isTrue();
            for (int bit = 0; bit < 32; bit++) {
                ones[bit] += key >>> bit & 1;
            }
        }
        for (int bit = 0; bit < 32; bit++) {
            assertThat(ones[bit]).as("bit %d set in %d of %d keys", bit, ones[bit], n).isBetween(n * 45 / 100, n * 55 / 100);
        }
        for (int i = 0; i < 1000; i++) {
            int base = KeySource.random(new SplittableRandom(seeds.nextLong()), DeviceLimits.RXE.maxQp()).qpnBase();
            assertThat(base).isGreaterThanOrEqualTo(2);
            assertThat(base + DeviceLimits.RXE.maxQp() - 1).isLessThan(0xFFFFFF);
        }
    }

    @Test
    @DisplayName("Random layout: the QPN base leaves room below 0xFFFFFF for the device's max_qp slots, whatever its profile says (seed " + SEED + ")")
    void randomQpnBaseLeavesRoomForTheDevicesMaxQp() {
        SplittableRandom seeds = new SplittableRandom(SEED);
        int maxQp = 0xFFFF00; // a device with almost the whole QPN space: bases 2..0xFE only
        for (int i = 0; i < 1000; i++) {
            int base = KeySource.random(new SplittableRandom(seeds.nextLong()), maxQp).qpnBase();
            assertThat(base).isBetween(RandomKeySource.LOWEST_QPN, 0xFFFFFF - maxQp - 1);
        }
    }

    @Test
    @DisplayName("Random layout: every live key finds its region in the table, deregistered keys keep failing (seed " + SEED + ")")
    void randomKeysInTheTable() {
        MemoryRegionTable table = new MemoryRegionTable(100_000, KeySource.random(new SplittableRandom(SEED), DeviceLimits.RXE.maxQp()));
        Object pd = new Object();
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion[] live = new MemoryRegion[3000];
            Set<Integer> stale = new HashSet<>();
            SplittableRandom random = new SplittableRandom(SEED + 1);
            for (int step = 0; step < 20_000; step++) {
                int i = random.nextInt(live.length);
                if (live[i] != null) {
                    stale.add(live[i].rkey);
                    table.deregister(live[i]);
                    live[i] = null;
                } else {
                    live[i] = new MemoryRegion(arena.allocate(64), REMOTE, pd);
                    table.register(live[i]);
                    assertThat(stale).doesNotContain(live[i].rkey);
                }
            }
            for (MemoryRegion region : live) {
                if (region != null) {
                    assertThat(table.find(region.rkey)).isSameAs(region);
                    assertThat(table.checkRemote(region.rkey, pd, null, AccessFlag.REMOTE_WRITE.bit(), region.address, 64))
                            .isEqualTo(MemoryRegionTable.Check.OK);
                    assertThat(table.find(region.rkey ^ 1)).isNull();
                }
            }
            for (int key : stale) {
                assertThat(table.find(key)).isNull();
            }
            assertThat(table.find(0)).isNull();
        }
    }
}
