package org.roce4j.emulator.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** rxe's resp.resources[]: max_dest_rd_atomic slots reused in turn, found again by PSN. */
class ReadAtomicResourcesTest {

    @Test
    void slotsAreReusedInTurnSoTheOldestSavedRequestIsForgotten() {
        ReadAtomicResources resources = new ReadAtomicResources();
        resources.resize(2);
        ReadAtomicResource first = save(resources, 10, 12, false);
        ReadAtomicResource second = save(resources, 13, 13, true);
        assertThat(resources.find(11, false)).isSameAs(first);
        assertThat(resources.find(13, true)).isSameAs(second);
        ReadAtomicResource third = save(resources, 14, 15, false);
        assertThat(third).as("the oldest slot is reused").isSameAs(first);
        assertThat(resources.find(11, false)).isNull();
        assertThat(resources.find(15, false)).isSameAs(third);
    }

    @Test
    void findMatchesOnlyThePsnRangeAndKindSaved() {
        ReadAtomicResources resources = new ReadAtomicResources();
        resources.resize(4);
        save(resources, 0xFFFFFE, 0x000001, false); // a READ whose PSNs wrap
        assertThat(resources.find(0xFFFFFF, false)).isNotNull();
        assertThat(resources.find(0x000001, false)).isNotNull();
        assertThat(resources.find(0x000002, false)).isNull();
        assertThat(resources.find(0xFFFFFF, true)).as("an atomic is looked up apart").isNull();
        assertThat(resources.contains(0x000000)).isTrue();
        assertThat(resources.contains(0x000005)).isFalse();
    }

    @Test
    void clearAndResizeForgetWhatWasSaved() {
        ReadAtomicResources resources = new ReadAtomicResources();
        resources.resize(2);
        save(resources, 5, 5, true);
        resources.clear();
        assertThat(resources.contains(5)).isFalse();
        save(resources, 6, 6, true);
        resources.resize(3);
        assertThat(resources.contains(6)).isFalse();
    }

    @Test
    void withoutMaxDestRdAtomicOneSlotStillHoldsTheRequestBeingAnswered() {
        ReadAtomicResources resources = new ReadAtomicResources();
        ReadAtomicResource res = save(resources, 7, 7, true);
        assertThat(resources.find(7, true)).isSameAs(res);
    }

    private static ReadAtomicResource save(ReadAtomicResources resources, int firstPsn, int lastPsn, boolean atomic) {
        ReadAtomicResource res = resources.next();
        res.atomic = atomic;
        res.firstPsn = firstPsn;
        res.lastPsn = lastPsn;
        return res;
    }
}
