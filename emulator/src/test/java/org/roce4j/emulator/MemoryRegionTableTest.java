package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AccessFlag;

import static org.roce4j.emulator.MemoryRegionTable.Check.ACCESS_DENIED;
import static org.roce4j.emulator.MemoryRegionTable.Check.INVALIDATED;
import static org.roce4j.emulator.MemoryRegionTable.Check.NO_SUCH_KEY;
import static org.roce4j.emulator.MemoryRegionTable.Check.OK;
import static org.roce4j.emulator.MemoryRegionTable.Check.OUT_OF_BOUNDS;
import static org.roce4j.emulator.MemoryRegionTable.Check.WRONG_PD;

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
    @DisplayName("rxe keys: index << 8 | key byte; the rkey is 0 without remote access")
    void keys() {
        MemoryRegion local = register(LOCAL_WRITE);
        MemoryRegion remote = register(LOCAL_WRITE | REMOTE_WRITE);
        assertThat(local.lkey >>> 8).isEqualTo(1);
        assertThat(remote.lkey >>> 8).isEqualTo(2);
        assertThat(local.rkey).isZero();
        assertThat(remote.rkey).isEqualTo(remote.lkey);
        assertThat(table.checkRemote(0, pd, REMOTE_READ, local.address, 1)).isEqualTo(NO_SUCH_KEY);
    }

    @Test
    @DisplayName("IBTA 10.6.3.3: remote access checks key, PD, access right and bounds, in that order")
    void remoteChecks() {
        MemoryRegion region = register(LOCAL_WRITE | REMOTE_WRITE);
        long va = region.address;
        assertThat(table.checkRemote(region.rkey, pd, REMOTE_WRITE, va, 4096)).isEqualTo(OK);
        assertThat(table.checkRemote(region.rkey ^ 0x80, pd, REMOTE_WRITE, va, 8)).isEqualTo(NO_SUCH_KEY);
        assertThat(table.checkRemote(region.rkey, otherPd, REMOTE_WRITE, va, 8)).isEqualTo(WRONG_PD);
        assertThat(table.checkRemote(region.rkey, pd, REMOTE_READ, va, 8)).isEqualTo(ACCESS_DENIED);
        assertThat(table.checkRemote(region.rkey, pd, REMOTE_WRITE, va + 4090, 8)).isEqualTo(OUT_OF_BOUNDS);
        assertThat(table.checkRemote(region.rkey, pd, REMOTE_WRITE, va - 1, 8)).isEqualTo(OUT_OF_BOUNDS);
        assertThat(table.checkRemote(region.rkey, pd, REMOTE_WRITE, va + 8, -1L)).isEqualTo(OUT_OF_BOUNDS);
        assertThat(table.checkLocal(region.lkey, pd, LOCAL_WRITE, va + 4095, 1)).isEqualTo(OK);
    }

    @Test
    @DisplayName("a deregistered key stays invalid even when its slot is reused")
    void staleKeys() {
        MemoryRegion first = register(LOCAL_WRITE | REMOTE_READ);
        int stale = first.rkey;
        table.deregister(first);
        assertThat(table.checkRemote(stale, pd, REMOTE_READ, first.address, 1)).isEqualTo(NO_SUCH_KEY);
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
        assertThat(table.checkRemote(region.rkey, pd, REMOTE_WRITE, region.address, 1)).isEqualTo(INVALIDATED);
        assertThat(table.checkLocal(region.lkey, pd, 0, region.address, 1)).isEqualTo(INVALIDATED);
    }
}
