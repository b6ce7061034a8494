package org.roce4j.conformance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What the memories of a requester (A) and a responder (B) must hold after a sequence of work
 * requests: plain {@code byte[]} images of every registered region on both sides, changed by each
 * operation in posting order the way the verbs spec says the RNIC changes real memory.
 *
 * <ul>
 *   <li>SEND: the gathered bytes of the local SGEs are scattered, in SGE order, into the SGEs of the
 *       next receive WQE (IBTA 9.4.1: receive WQEs are consumed in order); on UD the first 40 bytes
 *       of the receive buffer are the GRH (IBTA 11.4.1.2), which this model does not predict — they
 *       are marked unspecified and checked separately by the property.
 *   <li>RDMA WRITE: the gathered bytes replace the remote bytes.
 *   <li>RDMA READ: the remote bytes are scattered into the local SGEs.
 *   <li>Atomics (IBTA 9.4.5): 8 remote bytes read as a host-order (little-endian here) value; FETCH_AND_ADD
 *       stores old + add, CMP_AND_SWP stores swap when old equals compare; the old value is returned
 *       into the local SGE in host order. ATOMIC_WRITE (IBTA 1.5) stores its 8 bytes, returning nothing.
 *   <li>Memory windows: an access through a type 2 window bound over exactly its remote slice acts as through
 *       the region; SEND_WITH_INV and LOCAL_INV free the window, whose rkey then reaches nothing.
 * </ul>
 *
 * <p>The model knows nothing about ordering between operations: the scenarios give every operation
 * memory of its own (its own local slices, its own remote slice, its own receive buffer), so the
 * outcome does not depend on when the RNIC executes each one. Only the receive queue is ordered, and
 * the model consumes it in posting order.
 *
 * <p>Every byte remembers which operation wrote it last ({@code -1}: the initial random fill), so a
 * difference names the guilty operation.
 */
final class ReferenceModel {
    /** Bytes of the GRH at the head of every UD receive buffer. */
    static final int GRH_BYTES = 40;

    /** A contiguous piece of one region: the model's SGE. */
    record Slice(int region, int offset, int length) {
        @Override
        public String toString() {
            return "r" + region + "[" + offset + "+" + length + "]";
        }
    }

    /** Where a byte of a scatter list lives. */
    record Position(int region, int offset) {
    }

    final byte[][] local;
    final byte[][] remote;
    private final int[][] localWriter;
    private final int[][] remoteWriter;
    private final boolean[][] remoteUnspecified;

    /** Regions of the given sizes filled with bytes drawn from {@code seed}, so untouched bytes are not zeros. */
    ReferenceModel(int[] localSizes, int[] remoteSizes, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        local = fill(localSizes, random);
        remote = fill(remoteSizes, random);
        localWriter = writers(localSizes);
        remoteWriter = writers(remoteSizes);
        remoteUnspecified = new boolean[remoteSizes.length][];
        for (int i = 0; i < remoteSizes.length; i++) {
            remoteUnspecified[i] = new boolean[remoteSizes[i]];
        }
    }

    /** The initial contents of a requester region (a copy). */
    byte[] initialLocal(int region) {
        return local[region].clone();
    }

    byte[] initialRemote(int region) {
        return remote[region].clone();
    }

    /** SEND / SEND_WITH_IMM: gather at A, scatter into the receive WQE at B (after the GRH on UD). */
    void send(int op, List<Slice> gather, List<Slice> receive, boolean grh) {
        byte[] message = gather(local, gather);
        List<Position> stream = positions(receive);
        int skip = 0;
        if (grh) {
            for (int i = 0; i < GRH_BYTES; i++) {
                Position p = stream.get(i);
                remoteUnspecified[p.region()][p.offset()] = true;
                remoteWriter[p.region()][p.offset()] = op;
            }
            skip = GRH_BYTES;
        }
        if (stream.size() < skip + message.length) {
            throw new IllegalArgumentException("op " + op + ": receive buffer of " + stream.size()
                    + " bytes for " + message.length + (grh ? " + GRH" : ""));
        }
        for (int i = 0; i < message.length; i++) {
            Position p = stream.get(skip + i);
            remote[p.region()][p.offset()] = message[i];
            remoteWriter[p.region()][p.offset()] = op;
        }
    }

    /** RDMA_WRITE / RDMA_WRITE_WITH_IMM: gather at A, store at B's slice. */
    void write(int op, List<Slice> gather, Slice target) {
        byte[] data = gather(local, gather);
        check(data.length == target.length(), "write length");
        System.arraycopy(data, 0, remote[target.region()], target.offset(), data.length);
        Arrays.fill(remoteWriter[target.region()], target.offset(), target.offset() + data.length, op);
    }

    /** RDMA_READ: B's slice scattered into A's SGEs. */
    void read(int op, List<Slice> scatter, Slice source) {
        byte[] data = Arrays.copyOfRange(remote[source.region()], source.offset(), source.offset() + source.length());
        scatter(local, localWriter, scatter, data, op);
    }

    /** ATOMIC_FETCH_AND_ADD: returns the original value, as the requester receives it. */
    long fetchAndAdd(int op, Slice result, Slice target, long add) {
        long old = readLong(remote[target.region()], target.offset());
        writeLong(remote[target.region()], target.offset(), old + add);
        Arrays.fill(remoteWriter[target.region()], target.offset(), target.offset() + 8, op);
        scatter(local, localWriter, List.of(result), longBytes(old), op);
        return old;
    }

    /** ATOMIC_CMP_AND_SWP: returns the original value. */
    long compareAndSwap(int op, Slice result, Slice target, long compare, long swap) {
        long old = readLong(remote[target.region()], target.offset());
        if (old == compare) {
            writeLong(remote[target.region()], target.offset(), swap);
            Arrays.fill(remoteWriter[target.region()], target.offset(), target.offset() + 8, op);
        }
        scatter(local, localWriter, List.of(result), longBytes(old), op);
        return old;
    }

    /**
     * ATOMIC_WRITE (IBTA 1.5 9.4.7): the 8 bytes given with the request (host order) replace the remote 8 bytes;
     * nothing returns to the requester.
     */
    void atomicWrite(int op, Slice target, long value) {
        check(target.length() == 8, "atomic write length");
        writeLong(remote[target.region()], target.offset(), value);
        Arrays.fill(remoteWriter[target.region()], target.offset(), target.offset() + 8, op);
    }

    // ---- memory windows (IBTA 10.6.7) -----------------------------------------------------------------------
    // Windows of the responder, each bound by a BIND_MW of B's QP over one operation's remote slice: a remote
    // access through a window is the access through its region (the slice is the window, so bounds and rights
    // hold); SEND_WITH_INV and LOCAL_INV free a bound window (IBTA 9.4.4, 10.6.5), and a freed window's rkey
    // reaches nothing after.

    private final List<Boolean> windowBound = new ArrayList<>();

    /** A type 2 window bound (its BIND_MW completes successfully); {@return its number} */
    int bindWindow() {
        windowBound.add(true);
        return windowBound.size() - 1;
    }

    /** SEND_WITH_INV or LOCAL_INV of a bound window's rkey: it is freed. */
    void invalidateWindow(int window) {
        check(windowBound.get(window), "invalidating a window that is not bound");
        windowBound.set(window, false);
    }

    /** Whether the window is bound (a LOCAL_INV of it succeeds) or freed (its rkey reaches nothing). */
    boolean windowBound(int window) {
        return windowBound.get(window);
    }

    int windows() {
        return windowBound.size();
    }

    /** The 8-byte host-order value at a remote position, as it is now in the model. */
    long remoteLong(Slice target) {
        return readLong(remote[target.region()], target.offset());
    }

    /** Null when {@code actual} equals the requester's region, else where and how it differs. */
    String diffLocal(int region, byte[] actual) {
        return diff("A (requester) region " + region, local[region], localWriter[region], null, actual);
    }

    /** Null when {@code actual} equals the responder's region outside the GRH bytes, else the differences. */
    String diffRemote(int region, byte[] actual) {
        return diff("B (responder) region " + region, remote[region], remoteWriter[region],
                remoteUnspecified[region], actual);
    }

    /** The bytes a scatter list covers, in order: what a receive buffer looks like as one stream. */
    static byte[] collect(byte[][] regions, List<Slice> slices) {
        return gather(regions, slices);
    }

    static List<Position> positions(List<Slice> slices) {
        List<Position> stream = new ArrayList<>();
        for (Slice s : slices) {
            for (int i = 0; i < s.length(); i++) {
                stream.add(new Position(s.region(), s.offset() + i));
            }
        }
        return stream;
    }

    static long readLong(byte[] bytes, int offset) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = value << 8 | (bytes[offset + i] & 0xFFL);
        }
        return value;
    }

    static void writeLong(byte[] bytes, int offset, long value) {
        for (int i = 0; i < 8; i++) {
            bytes[offset + i] = (byte) (value >>> (8 * i));
        }
    }

    private static byte[] longBytes(long value) {
        byte[] bytes = new byte[8];
        writeLong(bytes, 0, value);
        return bytes;
    }

    private static byte[] gather(byte[][] regions, List<Slice> slices) {
        int total = slices.stream().mapToInt(Slice::length).sum();
        byte[] data = new byte[total];
        int at = 0;
        for (Slice s : slices) {
            System.arraycopy(regions[s.region()], s.offset(), data, at, s.length());
            at += s.length();
        }
        return data;
    }

    private static void scatter(byte[][] regions, int[][] writers, List<Slice> slices, byte[] data, int op) {
        int at = 0;
        for (Slice s : slices) {
            int n = Math.min(s.length(), data.length - at);
            System.arraycopy(data, at, regions[s.region()], s.offset(), n);
            Arrays.fill(writers[s.region()], s.offset(), s.offset() + n, op);
            at += n;
        }
        check(at == data.length, "scatter list shorter than the data");
    }

    private static String diff(String name, byte[] expected, int[] writer, boolean[] unspecified, byte[] actual) {
        if (expected.length != actual.length) {
            return name + ": " + actual.length + " bytes, model has " + expected.length;
        }
        StringBuilder text = new StringBuilder();
        int differences = 0;
        for (int i = 0; i < expected.length; i++) {
            if (expected[i] != actual[i] && (unspecified == null || !unspecified[i])) {
                if (differences < 8) {
                    text.append(String.format("%n  %s offset %d: expected 0x%02x, got 0x%02x (last written by %s)",
                            name, i, expected[i] & 0xFF, actual[i] & 0xFF,
                            writer[i] < 0 ? "nobody: initial fill" : "op #" + writer[i]));
                }
                differences++;
            }
        }
        if (differences == 0) {
            return null;
        }
        return differences + " byte(s) differ from the model in " + name + ":" + text
                + (differences > 8 ? String.format("%n  …") : "");
    }

    private static byte[][] fill(int[] sizes, SplittableRandom random) {
        byte[][] regions = new byte[sizes.length][];
        for (int i = 0; i < sizes.length; i++) {
            regions[i] = new byte[sizes[i]];
            random.nextBytes(regions[i]);
        }
        return regions;
    }

    private static int[][] writers(int[] sizes) {
        int[][] writers = new int[sizes.length][];
        for (int i = 0; i < sizes.length; i++) {
            writers[i] = new int[sizes[i]];
            Arrays.fill(writers[i], -1);
        }
        return writers;
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("reference model misuse: " + what);
        }
    }
}
