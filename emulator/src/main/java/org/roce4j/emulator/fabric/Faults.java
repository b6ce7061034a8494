package org.roce4j.emulator.fabric;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * An immutable, seeded fault-injection plan for the fabric, installed with
 * {@link Fabric#faults(Faults)}. Each method returns a new plan with one more rule:
 *
 * <pre>{@code
 * Faults.seeded(42)
 *       .drop(0.01)                                                  // 1% of every frame
 *       .reorder(0.1, Duration.ofNanos(4_000))                          // 10% held back 1 ns..4 µs
 *       .duplicate(1.0, FrameMatch.only(FrameClass.ACKS))            // every ACK twice
 *       .dropNth(3, FrameMatch.from(a).andTo(b))                     // the 3rd frame from a to b
 *       .corruptNth(7, FrameMatch.any())                             // the 7th frame of all
 *       .delay(1.0, Duration.ofMillis(2), FrameMatch.only(FrameClass.READ_RESPONSES));
 * }</pre>
 *
 * <h2>Replay</h2>
 * Every random choice comes from the seed: rule {@code i} draws from the {@code i}-th
 * {@link java.util.SplittableRandom#split() split} of {@code new SplittableRandom(seed)}, once per
 * frame it matches (and again for a corrupted byte's place and value, or a reorder delay), so the
 * same plan on the same frame sequence does the same thing, and a rule's choices do not change
 * when another rule is added. {@link #toString()} names the seed: put it in failure messages.
 *
 * <h2>How rules combine</h2>
 * Every rule sees every frame it matches and counts it ("frame n" is the n-th frame matching the
 * rule, whatever other rules did to the frames before). Then, for one frame: a drop wins over
 * everything; otherwise the frame is corrupted if any corrupt rule fired, held back by the sum of
 * the delays and reorder delays that fired, and delivered twice if a duplicate rule fired (the
 * copy is the frame as corrupted, delivered right after it).
 *
 * <h2>What each fault does</h2>
 * <ul>
 *   <li>drop: the frame is lost after the pcap tap (the capture shows it, as a tap at the sender).
 *   <li>duplicate: a second copy is queued; the capture shows the frame once (the tap is at the
 *       sender, before the fault point).
 *   <li>corrupt: one byte inside the part the ICRC covers, picked at random from the BTH's PSN to
 *       the last byte before the ICRC (never a field parsed before the ICRC check, so a receiver
 *       sees {@code BAD_ICRC}: CRC-32 catches every one-byte change), XORed with a random
 *       non-zero value. A frame that is not RoCEv2 gets a byte after its Ethernet header changed.
 *       Ethernet addresses are never touched.
 *   <li>delay: delivery later by a fixed time (virtual time in deterministic mode).
 *   <li>reorder: delivery later by a random time in {@code (0, window]}, so frames transmitted up
 *       to {@code window} later overtake it. The fabric has no serialisation delay: frames sent
 *       in one burst share their transmit time, and any reordered frame falls behind all of them.
 * </ul>
 */
public final class Faults {

    private final long seed;
    private final List<FaultRule> rules;

    private Faults(long seed, List<FaultRule> rules) {
        this.seed = seed;
        this.rules = List.copyOf(rules);
    }

    /** {@return a plan with no rules whose random choices will all come from {@code seed}} */
    public static Faults seeded(long seed) {
        return new Faults(seed, List.of());
    }

    public long seed() {
        return seed;
    }

    /**
     * {@return a new injector carrying out this plan, its random choices fresh from the seed} For
     * links outside a {@link Fabric}, which installs its own through {@link Fabric#faults}; the
     * caller must not use it from two threads at once.
     */
    public FaultInjector newInjector() {
        return new FaultInjector(this);
    }

    /** {@return true if the plan has no rules} */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** Drops each frame with {@code probability}. */
    public Faults drop(double probability) {
        return drop(probability, FrameMatch.any());
    }

    /** Drops each frame {@code where} matches with {@code probability}. */
    public Faults drop(double probability, FrameMatch where) {
        return with(FaultRule.Kind.DROP, where, probability, 0, 0);
    }

    /** Drops the {@code n}-th frame (from 1) that {@code where} matches. */
    public Faults dropNth(long n, FrameMatch where) {
        return with(FaultRule.Kind.DROP, where, 0, positive(n), 0);
    }

    /** Delivers each frame twice with {@code probability}. */
    public Faults duplicate(double probability) {
        return duplicate(probability, FrameMatch.any());
    }

    /** Delivers each frame {@code where} matches twice with {@code probability}. */
    public Faults duplicate(double probability, FrameMatch where) {
        return with(FaultRule.Kind.DUPLICATE, where, probability, 0, 0);
    }

    /** Delivers the {@code n}-th frame (from 1) that {@code where} matches twice. */
    public Faults duplicateNth(long n, FrameMatch where) {
        return with(FaultRule.Kind.DUPLICATE, where, 0, positive(n), 0);
    }

    /** Changes one ICRC-covered byte of each frame with {@code probability}. */
    public Faults corrupt(double probability) {
        return corrupt(probability, FrameMatch.any());
    }

    /** Changes one ICRC-covered byte of each frame {@code where} matches with {@code probability}. */
    public Faults corrupt(double probability, FrameMatch where) {
        return with(FaultRule.Kind.CORRUPT, where, probability, 0, 0);
    }

    /** Changes one ICRC-covered byte of the {@code n}-th frame (from 1) that {@code where} matches. */
    public Faults corruptNth(long n, FrameMatch where) {
        return with(FaultRule.Kind.CORRUPT, where, 0, positive(n), 0);
    }

    /** Delivers each frame {@code where} matches {@code by} later, with {@code probability}. */
    public Faults delay(double probability, Duration by, FrameMatch where) {
        return with(FaultRule.Kind.DELAY, where, probability, 0, by.toNanos());
    }

    /** Delivers the {@code n}-th frame (from 1) that {@code where} matches {@code by} later. */
    public Faults delayNth(long n, Duration by, FrameMatch where) {
        return with(FaultRule.Kind.DELAY, where, 0, positive(n), by.toNanos());
    }

    /** Holds each frame back by a random time in (0, window] with {@code probability}. */
    public Faults reorder(double probability, Duration window) {
        return reorder(probability, window, FrameMatch.any());
    }

    /** Holds each frame {@code where} matches back by a random time in (0, window] with {@code probability}. */
    public Faults reorder(double probability, Duration window, FrameMatch where) {
        return with(FaultRule.Kind.REORDER, where, probability, 0, window.toNanos());
    }

    /**
     * {@return the seed and one rule per line, numbered from 1 as a pcapng capture's comments name them
     * ("dropped by rule 2")}
     */
    public String describe() {
        if (rules.isEmpty()) {
            return "faults, seed " + seed + ": none";
        }
        StringBuilder text = new StringBuilder("faults, seed ").append(seed).append(':');
        for (int i = 0; i < rules.size(); i++) {
            text.append("\n  rule ").append(i + 1).append(": ").append(rules.get(i));
        }
        return text.toString();
    }

    /** {@return the seed and the rules on one line, for failure messages} */
    @Override
    public String toString() {
        return "Faults(seed=" + seed + ", " + rules.stream().map(FaultRule::toString)
                .collect(Collectors.joining("; ", "[", "]")) + ")";
    }

    List<FaultRule> rules() {
        return rules;
    }

    private Faults with(FaultRule.Kind kind, FrameMatch where, double probability, long nth, long nanos) {
        List<FaultRule> more = new ArrayList<>(rules);
        more.add(new FaultRule(kind, Objects.requireNonNull(where, "where"), probability, nth, nanos));
        return new Faults(seed, more);
    }

    private static long positive(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("frames are counted from 1: " + n);
        }
        return n;
    }
}
