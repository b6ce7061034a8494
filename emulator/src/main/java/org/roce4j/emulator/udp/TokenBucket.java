package org.roce4j.emulator.udp;

import org.roce4j.emulator.fabric.Clock;

/** The pacer's token bucket: {@code rate} frames per second, at most {@code burst} back to back. Rate 0: no limit. */
final class TokenBucket {
    private final long rate;
    private final double burst;
    private final Clock clock;
    private double tokens;
    private long last;

    TokenBucket(long rate, int burst, Clock clock) {
        this.rate = rate;
        this.burst = burst;
        this.clock = clock;
        this.tokens = burst;
        this.last = clock.nanoTime();
    }

    private void refill() {
        long now = clock.nanoTime();
        tokens = Math.min(burst, tokens + (now - last) * (double) rate / 1e9);
        last = now;
    }

    /** Nanoseconds until one token is there (0: now). */
    long nanosUntilAvailable() {
        if (rate == 0) {
            return 0;
        }
        refill();
        return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) * 1e9 / rate);
    }

    /** Whole tokens available now. */
    long available() {
        if (rate == 0) {
            return Long.MAX_VALUE;
        }
        refill();
        return (long) tokens;
    }

    void take(int n) {
        if (rate != 0) {
            tokens -= n;
        }
    }
}
