package org.roce4j.emulator.verbs;

import java.security.SecureRandom;
import java.util.function.IntPredicate;

import org.roce4j.emulator.fabric.Fabric;

/**
 * Where an RNIC's memory keys (lkeys/rkeys) and QP numbers come from. RoCEv2 has no
 * authentication: whoever can send a datagram to UDP 4791 from the peer's address and knows the
 * destination QPN, the PSN and an rkey can write into registered memory. The numbers are therefore
 * drawn from a {@link SecureRandom} wherever frames can come from a real network — the threaded
 * fabric and the UDP link — and counted up where a test must replay byte for byte — the
 * deterministic fabric ({@link #forFabric}). See docs/threat-model.md.
 *
 * <p>Layouts:
 * <ul>
 *   <li>{@linkplain #sequential() sequential} (the deterministic fabric; what roce4j always did):
 *       key = {@code index << 8 | key byte}, the index a slot number from 1, the byte a counter,
 *       as rxe's {@code rxe_mr_init} with a counter in place of {@code rxe_get_next_key}'s random
 *       byte; QPNs 17, 18, … as rxe numbers user QPs.</li>
 *   <li>{@linkplain #random random} (threaded fabric, UDP link): the whole 32-bit key is random
 *       (never 0, never a live key, never one of the recently deregistered keys the table
 *       remembers) — 32 unpredictable bits where rxe has 8; the table finds a region by the whole
 *       key in a hash table, so nothing of the key is an index. QPNs are {@code base + slot} with
 *       {@code base} uniform in [2, 2^24 - 1 - max_qp): about 24 unpredictable
 *       bits, and never 0, 1 (the special QPs) or 0xFFFFFF (multicast).</li>
 * </ul>
 */
public interface KeySource {
    /** A new memory key: never 0, and never a key for which {@code taken} is true. */
    int nextMemoryKey(IntPredicate taken);

    /** A key was deregistered: the sequential layout may reuse its slot with another key byte. */
    void memoryKeyRetired(int key);

    /** The QPN of the RNIC's QP slot 0; slot {@code i} has QPN {@code qpnBase() + i}. */
    int qpnBase();

    /**
     * Unpredictable numbers off the deterministic fabric, today's reproducible ones on it, for a
     * device with {@code maxQp} QP slots ({@link DeviceLimits#maxQp()}).
     */
    static KeySource forFabric(Fabric fabric, int maxQp) {
        return fabric.isDeterministic() ? sequential() : random(new SecureRandom(), maxQp);
    }

    /** The counted layout: keys {@code index << 8 | counter byte}, QPNs from 17. */
    static KeySource sequential() {
        return new SequentialKeySource();
    }

    /**
     * The random layout, from {@code random}: a {@link SecureRandom} for real networks, or a seeded
     * generator (e.g. {@code new SplittableRandom(seed)}) to replay a run; QPN bases leave room for
     * {@code maxQp} slots below 0xFFFFFF.
     */
    static KeySource random(java.util.random.RandomGenerator random, int maxQp) {
        return new RandomKeySource(random, maxQp);
    }
}
