package org.roce4j.emulator.cm;

import java.util.PriorityQueue;

/**
 * The communication manager's timers on the node's clock (virtual on the deterministic fabric, so a
 * 98-second give-up costs no wall time): MAD retries, timewait, address-resolution timeouts. A
 * cancelled timer leaves the queue when it comes up; nothing else keeps a reference to it.
 */
final class CmTimers {
    /** One armed timer. */
    static final class Timer implements Comparable<Timer> {
        final long deadlineNanos;
        private final long order;
        private final Runnable action;
        private boolean cancelled;

        private Timer(long deadlineNanos, long order, Runnable action) {
            this.deadlineNanos = deadlineNanos;
            this.order = order;
            this.action = action;
        }

        void cancel() {
            cancelled = true;
        }

        @Override
        public int compareTo(Timer other) {
            int byTime = Long.compare(deadlineNanos, other.deadlineNanos);
            return byTime != 0 ? byTime : Long.compare(order, other.order);
        }
    }

    private final PriorityQueue<Timer> queue = new PriorityQueue<>();
    /** Ties at one deadline run in the order they were armed: replays stay byte-identical. */
    private long armed;

    Timer schedule(long deadlineNanos, Runnable action) {
        Timer timer = new Timer(deadlineNanos, armed++, action);
        queue.add(timer);
        return timer;
    }

    /** Runs every timer due at {@code nowNanos}; {@return how many ran} */
    int runDue(long nowNanos) {
        int ran = 0;
        while (!queue.isEmpty() && queue.peek().deadlineNanos <= nowNanos) {
            Timer timer = queue.poll();
            if (!timer.cancelled) {
                timer.action.run();
                ran++;
            }
        }
        return ran;
    }

    long nextDeadlineNanos() {
        while (!queue.isEmpty() && queue.peek().cancelled) {
            queue.poll();
        }
        return queue.isEmpty() ? Long.MAX_VALUE : queue.peek().deadlineNanos;
    }

    /** {@return timers armed and not cancelled: what a connection left behind would show up in} */
    int live() {
        int live = 0;
        for (Timer timer : queue) {
            if (!timer.cancelled) {
                live++;
            }
        }
        return live;
    }
}
