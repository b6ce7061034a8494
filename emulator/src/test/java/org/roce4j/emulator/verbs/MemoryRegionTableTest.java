package org.roce4j.emulator.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.random.RandomGenerator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

import static org.roce4j.emulator.verbs.MemoryRegionTable.Check.ACCESS_DENIED;
import static org.roce4j.emulator.verbs.MemoryRegionTable.Check.INVALIDATED;
import static org.roce4j.emulator.verbs.MemoryRegionTable.Check.NO_SUCH_KEY;
import static org.roce4j.emulator.verbs.MemoryRegionTable.Check.OK;
import static org.roce4j.emulator.verbs.MemoryRegionTable.Check.OUT_OF_BOUNDS;
import static org.roce4j.emulator.verbs.MemoryRegionTable.Check.WRONG_PD;

class MemoryRegionTableTest {
    private static final int LOCAL_WRITE = AccessFlag.LOCAL_WRITE.bit();
    private static final int REMOTE_READ = AccessFlag.REMOTE_READ.bit();
    private static final int REMOTE_WRITE = AccessFlag.REMOTE_WRITE.bit();

    private final Arena arena = Arena.ofConfined();
    private final MemoryRegionTable table = new MemoryRegionTable(1000, KeySource.sequential());
    private final Object pd = new Object();
    private final Object otherPd = new Object();

    @AfterEach
    void close() {
        arena.close();
    }

    private MemoryRegion register(int access) {
        MemorySegment memory = arena.allocate(4096);
        MemoryRegion region = new MemoryRegion(memory, access, pd);
        table.register(region);
        return region;
    }

    @Test
    @DisplayName("rxe keys: index << 8 | key byte; the rkey is the lkey, without remote access too (its rights refuse it)")
    void keys() {
        MemoryRegion local = register(LOCAL_WRITE);
        MemoryRegion remote = register(LOCAL_WRITE | REMOTE_WRITE);
        assertThat(local.lkey >>> 8).isEqualTo(1);
        assertThat(remote.lkey >>> 8).isEqualTo(2);
        assertThat(local.rkey).isEqualTo(local.lkey);
        assertThat(remote.rkey).isEqualTo(remote.lkey);
        assertThat(table.checkRemote(0, pd, null, REMOTE_READ, local.address, 1)).isEqualTo(NO_SUCH_KEY);
        assertThat(table.checkRemote(local.rkey, pd, null, REMOTE_READ, local.address, 1)).isNotEqualTo(MemoryRegionTable.Check.OK);
    }

    @Test
    @DisplayName("IBTA 10.6.3.3: remote access checks key, PD, access right and bounds, in that order")
    void remoteChecks() {
        MemoryRegion region = register(LOCAL_WRITE | REMOTE_WRITE);
        long va = region.address;
        assertThat(table.checkRemote(region.rkey, pd, null, REMOTE_WRITE, va, 4096)).isEqualTo(OK);
        assertThat(table.checkRemote(region.rkey ^ 0x80, pd, null, REMOTE_WRITE, va, 8)).isEqualTo(NO_SUCH_KEY);
        assertThat(table.checkRemote(region.rkey, otherPd, null, REMOTE_WRITE, va, 8)).isEqualTo(WRONG_PD);
        assertThat(table.checkRemote(region.rkey, pd, null, REMOTE_READ, va, 8)).isEqualTo(ACCESS_DENIED);
        assertThat(table.checkRemote(region.rkey, pd, null, REMOTE_WRITE, va + 4090, 8)).isEqualTo(OUT_OF_BOUNDS);
        assertThat(table.checkRemote(region.rkey, pd, null, REMOTE_WRITE, va - 1, 8)).isEqualTo(OUT_OF_BOUNDS);
        assertThat(table.checkRemote(region.rkey, pd, null, REMOTE_WRITE, va + 8, -1L)).isEqualTo(OUT_OF_BOUNDS);
        assertThat(table.checkLocal(region.lkey, pd, LOCAL_WRITE, va + 4095, 1)).isEqualTo(OK);
    }

    @Test
    @DisplayName("a deregistered key stays invalid even when its slot is reused")
    void staleKeys() {
        MemoryRegion first = register(LOCAL_WRITE | REMOTE_READ);
        int stale = first.rkey;
        table.deregister(first);
        assertThat(table.checkRemote(stale, pd, null, REMOTE_READ, first.address, 1)).isEqualTo(NO_SUCH_KEY);
        for (int i = 0; i < 100; i++) {
            MemoryRegion again = register(LOCAL_WRITE | REMOTE_READ);
            assertThat(again.rkey).isNotEqualTo(stale);
        }
        assertThat(table.find(stale)).isNull();
    }

    @Test
    @DisplayName("IBTA 10.6.5: invalidation needs the PD; afterwards every use fails until deregistration")
    void invalidation() {
        MemoryRegion region = register(LOCAL_WRITE | REMOTE_WRITE);
        assertThat(table.invalidate(region.rkey, otherPd)).isEqualTo(WRONG_PD);
        assertThat(table.invalidate(region.rkey + 0x100, pd)).isEqualTo(NO_SUCH_KEY);
        assertThat(table.invalidate(region.rkey, pd)).isEqualTo(OK);
        assertThat(table.invalidate(region.rkey, pd)).isEqualTo(INVALIDATED);
        assertThat(table.checkRemote(region.rkey, pd, null, REMOTE_WRITE, region.address, 1)).isEqualTo(INVALIDATED);
        assertThat(table.checkLocal(region.lkey, pd, 0, region.address, 1)).isEqualTo(INVALIDATED);
    }

    @Test
    @DisplayName("ibv_reg_mr past the device's max_mr is ENOMEM; a deregistration (counted once) frees a place")
    void regionLimit() {
        MemoryRegionTable small = new MemoryRegionTable(2, KeySource.sequential());
        MemorySegment memory = arena.allocate(64);
        MemoryRegion first = new MemoryRegion(memory, LOCAL_WRITE, pd);
        small.register(first);
        small.register(new MemoryRegion(memory, LOCAL_WRITE, pd));
        assertThat(small.size()).isEqualTo(2);
        assertThatThrownBy(() -> small.register(new MemoryRegion(memory, LOCAL_WRITE, pd)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
        small.deregister(first);
        small.deregister(first);
        assertThat(small.size()).isEqualTo(1);
        small.register(new MemoryRegion(memory, LOCAL_WRITE, pd));
        assertThat(small.size()).isEqualTo(2);
    }

    @Test
    @DisplayName("random keys: a deregistered key is not issued again until RETIRED_REMEMBERED later deregistrations push it out")
    void retiredKeysAreRememberedThenForgotten() {
        OfferingGenerator random = new OfferingGenerator(0x5EC0_0001);
        MemoryRegionTable keyed = new MemoryRegionTable(10, KeySource.random(random, DeviceLimits.RXE.maxQp()));
        MemorySegment memory = arena.allocate(64);
        random.offer = true;
        MemoryRegion first = new MemoryRegion(memory, LOCAL_WRITE, pd);
        keyed.register(first);
        assertThat(first.lkey).isEqualTo(random.offered);
        keyed.deregister(first);
        for (int retired = 1; retired < MemoryRegionTable.RETIRED_REMEMBERED; retired++) {
            random.offer = true; // the old key is offered first every time and refused while remembered
            MemoryRegion region = new MemoryRegion(memory, LOCAL_WRITE, pd);
            keyed.register(region);
            assertThat(region.lkey).as("key after %d retirements", retired).isNotEqualTo(random.offered);
            keyed.deregister(region);
        }
        random.offer = true; // RETIRED_REMEMBERED retirements: the first is still remembered
        MemoryRegion last = new MemoryRegion(memory, LOCAL_WRITE, pd);
        keyed.register(last);
        assertThat(last.lkey).isNotEqualTo(random.offered);
        keyed.deregister(last); // one more: the first key is forgotten
        random.offer = true;
        MemoryRegion reissued = new MemoryRegion(memory, LOCAL_WRITE, pd);
        keyed.register(reissued);
        assertThat(reissued.lkey).isEqualTo(random.offered);
        assertThat(keyed.find(random.offered)).isSameAs(reissued);
    }

    /** Draws {@code offered} once whenever {@code offer} is set, otherwise counts up from 1. */
    private static final class OfferingGenerator implements RandomGenerator {
        final int offered;
        boolean offer;
        private int next = 1;

        OfferingGenerator(int offered) {
            this.offered = offered;
        }

        @Override
        public int nextInt() {
            if (offer) {
                offer = false;
                return offered;
            }
            return next++;
        }

        @Override
        public long nextLong() {
            return nextInt();
        }
    }
}
