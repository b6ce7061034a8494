package org.roce4j.verbs.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.ScatterGatherList;

class RegisteredMemoryTest {

    @Test
    @DisplayName("INLINE data: only ranges inside a live registered segment; overlapping registrations, removal by identity")
    void inlineDataOnlyFromLiveRegisteredMemory() {
        RegisteredMemory registered = new RegisteredMemory();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment big = arena.allocate(4096, 8);
            MemorySegment inner = big.asSlice(100, 50);
            registered.add(inner);
            registered.add(big);
            assertThat(registered.holding(big.address() + 100, 50)).isNotNull();
            assertThat(registered.holding(big.address() + 140, 20)).as("past inner, inside big").isSameAs(big);
            assertThat(registered.holding(big.address(), 4096)).isSameAs(big);
            assertThat(registered.holding(big.address() + 4000, 97)).as("straddles the end").isNull();
            assertThat(registered.holding(0x10, 16)).isNull();
            assertThat(registered.holding(-8L, 16)).as("unsigned: no wrap past 2^64").isNull();
            registered.remove(big);
            assertThat(registered.holding(big.address() + 140, 20)).isNull();
            assertThat(registered.holding(big.address() + 110, 20)).isSameAs(inner);
            assertThat(registered.inlineProblem(new ScatterGatherList().add(big.address() + 110, 20, 0)
                    .add(0x10, 0, 0))).as("an empty SGE names no memory").isNull();
            assertThat(registered.inlineProblem(new ScatterGatherList().add(big.address() + 110, 20, 0)
                    .add(0x10, 16, 0))).contains("SGE 1 (16 bytes at 0x10)");
        }
        assertThat(registered.size()).isEqualTo(1);
        assertThat(registered.holding(0, -1L)).isNull();
    }

    @Test
    @DisplayName("a registered segment whose arena was closed holds nothing")
    void closedArenaHoldsNothing() {
        RegisteredMemory registered = new RegisteredMemory();
        Arena arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(64);
        registered.add(memory);
        assertThat(registered.holding(memory.address(), 64)).isSameAs(memory);
        arena.close();
        assertThat(registered.holding(memory.address(), 64)).isNull();
    }

    @Test
    @DisplayName("ibv_reg_mr's shared checks: native, not empty, IBTA o10-26 (remote write/atomic need LOCAL_WRITE), no wrap past 2^64")
    void registrationProblemsEveryProviderRefuses() {
        Set<AccessFlag> localWrite = EnumSet.of(AccessFlag.LOCAL_WRITE);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(64, 8);
            assertThat(RegisteredMemory.registrationProblem(memory, memory.address(), localWrite)).isNull();
            assertThat(RegisteredMemory.registrationProblem(MemorySegment.ofArray(new byte[64]), 0, localWrite))
                    .contains("Java heap");
            assertThat(RegisteredMemory.registrationProblem(memory.asSlice(0, 0), memory.address(), localWrite))
                    .contains("empty");
            for (AccessFlag remote : List.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_ATOMIC)) {
                assertThat(RegisteredMemory.registrationProblem(memory, memory.address(), EnumSet.of(remote)))
                        .as("%s without LOCAL_WRITE", remote).contains("o10-26");
                assertThat(RegisteredMemory.registrationProblem(memory, memory.address(),
                        EnumSet.of(remote, AccessFlag.LOCAL_WRITE))).isNull();
            }
            assertThat(RegisteredMemory.registrationProblem(memory, 0, EnumSet.of(AccessFlag.REMOTE_READ)))
                    .as("REMOTE_READ alone needs no local write").isNull();
            assertThat(RegisteredMemory.registrationProblem(memory, -64L, localWrite))
                    .as("ends exactly at 2^64").isNull();
            assertThat(RegisteredMemory.registrationProblem(memory, -63L, localWrite)).contains("wraps past 2^64");
        }
    }
}
