package org.roce4j.tools.analyze;

import java.util.Arrays;

/**
 * Request-to-acknowledgement latencies in fixed memory. The first {@value #EXACT_SAMPLES} are kept
 * as they are, so short captures get exact quantiles; past that every sample goes into a
 * log-linear histogram (32 sub-buckets per power of two, so a quantile is within 1/32 of the true
 * value) and the quantiles are read from it. Minimum, maximum and count are always exact.
 */
final class LatencyStats {
    static final int EXACT_SAMPLES = 1024;
    private static final int SUB_BUCKET_BITS = 5;
    private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;

    private long[] exact = new long[16];
    private long[] histogram; // null until the exact samples overflow
    private long count;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    void add(long nanos) {
        long value = Math.max(0, nanos);
        min = Math.min(min, value);
        max = Math.max(max, value);
        if (histogram == null && count < EXACT_SAMPLES) {
            if (count == exact.length) {
                exact = Arrays.copyOf(exact, exact.length * 2);
            }
            exact[(int) count++] = value;
            return;
        }
        if (histogram == null) {
            histogram = new long[64 * SUB_BUCKETS];
            for (int i = 0; i < count; i++) {
                histogram[bucketOf(exact[i])]++;
            }
            exact = null;
        }
        histogram[bucketOf(value)]++;
        count++;
    }

    long count() {
        return count;
    }

    long min() {
        return count == 0 ? 0 : min;
    }

    long max() {
        return count == 0 ? 0 : max;
    }

    /** The smallest sample at or below which a fraction {@code q} of the samples lie (nearest rank). */
    long quantile(double q) {
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * count));
        if (histogram == null) {
            long[] sorted = Arrays.copyOf(exact, (int) count);
            Arrays.sort(sorted);
            return sorted[(int) rank - 1];
        }
        long seen = 0;
        for (int bucket = 0; bucket < histogram.length; bucket++) {
            seen += histogram[bucket];
            if (seen >= rank) {
                return Math.min(max, Math.max(min, lowestValueOf(bucket)));
            }
        }
        return max;
    }

    /** Values below 32 have a bucket each; above, 32 buckets per power of two. */
    static int bucketOf(long value) {
        if (value < SUB_BUCKETS) {
            return (int) value;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(value); // >= SUB_BUCKET_BITS
        int shift = exponent - SUB_BUCKET_BITS;
        int sub = (int) (value >>> shift) - SUB_BUCKETS; // 0..31
        return (shift + 1) * SUB_BUCKETS + sub;
    }

    static long lowestValueOf(int bucket) {
        if (bucket < SUB_BUCKETS) {
            return bucket;
        }
        int shift = bucket / SUB_BUCKETS - 1;
        long sub = bucket % SUB_BUCKETS + SUB_BUCKETS;
        return sub << shift;
    }
}
