package org.roce4j.emulator.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class QpTimersTest {

    /** A QP as the heap sees it: a deadline the test sets, and the slot the heap gives. */
    private static final class FakeQp implements QpTimers.Member {
        final String name;
        long deadline = Long.MAX_VALUE;
        int slot = -1;

        FakeQp(String name) {
            this.name = name;
        }

        @Override
        public long deadlineNanos() {
            return deadline;
        }

        @Override
        public int timerSlot() {
            return slot;
        }

        @Override
        public void placeTimer(int slot) {
            this.slot = slot;
        }

        @Override
        public String toString() {
            return name + "@" + deadline;
        }
    }

    private final QpTimers<FakeQp> timers = new QpTimers<>();

    private FakeQp arm(String name, long deadline) {
        FakeQp qp = new FakeQp(name);
        move(qp, deadline);
        return qp;
    }

    private void move(FakeQp qp, long deadline) {
        qp.deadline = deadline;
        timers.changed(qp);
    }

    private List<FakeQp> takeDue(long now) {
        List<FakeQp> taken = new ArrayList<>();
        for (int i = 0, n = timers.takeDue(now); i < n; i++) {
            taken.add(timers.due(i));
        }
        return taken;
    }

    @Test
    void withNoTimerArmedTheEarliestDeadlineIsNever() {
        assertThat(timers.earliest()).isEqualTo(Long.MAX_VALUE);
        FakeQp idle = arm("idle", Long.MAX_VALUE);

        assertThat(timers.size()).isZero();
        assertThat(idle.slot).isEqualTo(-1);
        assertThat(takeDue(Long.MAX_VALUE)).isEmpty();
    }

    @Test
    void theEarliestDeadlineIsTheSmallestArmed() {
        arm("a", 300);
        arm("b", 100);
        arm("c", 200);

        assertThat(timers.earliest()).isEqualTo(100);
        assertThat(timers.size()).isEqualTo(3);
    }

    @Test
    void aDeadlineMovedLaterOrEarlierIsReordered() {
        FakeQp a = arm("a", 100);
        FakeQp b = arm("b", 200);

        move(a, 500); // the ACK timer restarted on a response
        assertThat(timers.earliest()).isEqualTo(200);
        move(a, 50);
        assertThat(timers.earliest()).isEqualTo(50);
        move(b, 10);
        assertThat(timers.earliest()).isEqualTo(10);
        assertThat(timers.size()).isEqualTo(2);
    }

    @Test
    void aClearedTimerLeavesTheHeap() {
        FakeQp a = arm("a", 100);
        FakeQp b = arm("b", 200);

        move(a, Long.MAX_VALUE);

        assertThat(a.slot).isEqualTo(-1);
        assertThat(timers.earliest()).isEqualTo(200);
        assertThat(takeDue(1_000)).containsExactly(b);
        assertThat(timers.size()).isZero();
    }

    @Test
    void aRemovedQpTakesItsTimerWithIt() {
        FakeQp a = arm("a", 100);
        arm("b", 200);

        timers.remove(a);
        timers.remove(a); // twice: nothing more happens

        assertThat(a.slot).isEqualTo(-1);
        assertThat(timers.size()).isEqualTo(1);
        assertThat(timers.earliest()).isEqualTo(200);
    }

    @Test
    void onlyDueTimersAreTakenEarliestFirstAndAnEqualDeadlineIsDue() {
        FakeQp late = arm("late", 400);
        FakeQp second = arm("second", 200);
        FakeQp first = arm("first", 100);
        FakeQp exactlyNow = arm("now", 300);

        assertThat(takeDue(300)).containsExactly(first, second, exactlyNow);
        assertThat(first.slot).isEqualTo(-1);
        assertThat(timers.earliest()).isEqualTo(400);
        assertThat(late.slot).isZero();
    }

    @Test
    void aTimerReArmedWhileFiringWaitsForTheNextTake() {
        FakeQp a = arm("a", 100);
        List<FakeQp> due = takeDue(100);

        move(a, 100); // re-armed at a deadline already reached: not taken again by the same take

        assertThat(due).containsExactly(a);
        assertThat(timers.earliest()).isEqualTo(100);
        assertThat(takeDue(100)).containsExactly(a);
    }

    @Test
    void manyRandomChangesKeepTheHeapInOrderWithItsSlotsTrue() {
        Random random = new Random(20261127);
        List<FakeQp> qps = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            qps.add(new FakeQp("qp" + i));
        }
        for (int step = 0; step < 20_000; step++) {
            FakeQp qp = qps.get(random.nextInt(qps.size()));
            int what = random.nextInt(10);
            if (what < 6) {
                move(qp, random.nextInt(1_000)); // arm or move, ties frequent
            } else if (what < 8) {
                move(qp, Long.MAX_VALUE);
            } else if (what < 9) {
                timers.remove(qp);
                qp.deadline = Long.MAX_VALUE;
            } else {
                long now = random.nextInt(1_000);
                long previous = Long.MIN_VALUE;
                for (FakeQp taken : takeDue(now)) {
                    assertThat(taken.deadline).isLessThanOrEqualTo(now).isGreaterThanOrEqualTo(previous);
                    assertThat(taken.slot).isEqualTo(-1);
                    previous = taken.deadline;
                    taken.deadline = Long.MAX_VALUE; // fired: as the completer clears it
                }
            }
            long earliest = Long.MAX_VALUE;
            int armed = 0;
            for (FakeQp each : qps) {
                if (each.deadline != Long.MAX_VALUE) {
                    earliest = Math.min(earliest, each.deadline);
                    armed++;
                    assertThat(each.slot).as("%s is in the heap", each).isGreaterThanOrEqualTo(0);
                } else {
                    assertThat(each.slot).as("%s is not in the heap", each).isEqualTo(-1);
                }
            }
            assertThat(timers.earliest()).isEqualTo(earliest);
            assertThat(timers.size()).isEqualTo(armed);
        }
    }
}
