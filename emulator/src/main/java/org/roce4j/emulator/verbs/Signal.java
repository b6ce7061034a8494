package org.roce4j.emulator.verbs;

import java.util.concurrent.TimeUnit;

import org.roce4j.emulator.fabric.Clock;

/**
 * How an application thread waits for the threaded event loop: a sequence number bumped with each
 * event. Read {@link #sequence()}, look for the event under the fabric lock, and if there is none,
 * {@link #awaitChange} from that sequence: an event that slipped in between is not missed.
 */
final class Signal {
    private long sequence;

    synchronized long sequence() {
        return sequence;
    }

    synchronized void signal() {
        sequence++;
        notifyAll();
    }

    /** Waits until the sequence moves past {@code seen} or the clock reaches {@code deadlineNanos}. */
    synchronized void awaitChange(long seen, Clock clock, long deadlineNanos) {
        try {
            long remaining;
            while (sequence == seen && (remaining = deadlineNanos - clock.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
