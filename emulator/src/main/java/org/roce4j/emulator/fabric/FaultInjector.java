package org.roce4j.emulator.fabric;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.pcap.FaultComments;

/**
 * The {@link FrameFilter} that carries out a {@link Faults} plan, with the plan's random state
 * and counters. One per installation: installing the same plan again replays it from the seed.
 * Not thread-safe: the fabric lock guards it, and it never throws (a frame it cannot classify
 * is "not RoCE" and only rules for any frame apply to it). A {@link Fabric} makes its own; a link
 * outside a fabric (the UDP link) gets one from {@link Faults#newInjector()}.
 */
public final class FaultInjector implements FrameFilter {

    /** BTH bytes 9..11 hold the PSN: the first BTH byte no check before the ICRC looks at. */
    private static final int BTH_PSN_OFFSET = 9;

    private final Faults plan;
    private final FaultRule[] rules;
    private final SplittableRandom[] randoms;
    private final long[] matched;
    private final PacketInfo packet = new PacketInfo();

    private boolean duplicatePending;
    /** The rules that fired on the last frame, by kind (0: none; else the rule's number from 1), for the tap's notes. */
    private int lastDropRule;
    private int lastCorruptRule;
    /** Whether the last corrupted frame was RoCE: a byte under its ICRC changed, which the receiver's ICRC check catches. */
    private boolean lastCorruptUnderIcrc;
    private int lastDuplicateRule;
    private final int[] lastDelayRules;
    private int lastDelayRuleCount;
    private long lastHeldBackNanos;
    private long dropped;
    private long duplicated;
    private long corrupted;
    private long delayed;
    private long reordered;

    FaultInjector(Faults plan) {
        this.plan = plan;
        this.rules = plan.rules().toArray(FaultRule[]::new);
        this.randoms = new SplittableRandom[rules.length];
        this.matched = new long[rules.length];
        this.lastDelayRules = new int[rules.length];
        SplittableRandom root = new SplittableRandom(plan.seed());
        for (int i = 0; i < rules.length; i++) {
            randoms[i] = root.split();
        }
    }

    /** {@return the plan this injector carries out} */
    public Faults plan() {
        return plan;
    }

    /** {@return what it did so far: frames dropped, duplicated, corrupted, delayed, reordered} */
    public FaultCounters counters() {
        return new FaultCounters(dropped, duplicated, corrupted, delayed, reordered);
    }

    @Override
    public long deliveryTimeNanos(byte[] frame, int length, long transmitNanos, long nominalDeliveryNanos) {
        duplicatePending = false;
        lastDropRule = 0;
        lastCorruptRule = 0;
        lastDuplicateRule = 0;
        lastDelayRuleCount = 0;
        lastHeldBackNanos = 0;
        long destination = FrameSwitch.mac(frame, 0);
        long source = FrameSwitch.mac(frame, 6);
        Opcode opcode = packet.parseFrame(frame, 0, length) || packet.dropReason() == DropReason.BAD_ICRC
                ? packet.opcode() : null;
        boolean drop = false;
        boolean duplicate = false;
        SplittableRandom corruptWith = null;
        long delay = 0;
        long reorder = 0;
        for (int i = 0; i < rules.length; i++) {
            FaultRule rule = rules[i];
            if (!rule.where().matches(source, destination, opcode, opcode != null ? packet : null)) {
                continue;
            }
            matched[i]++;
            boolean fires = rule.scripted() ? matched[i] == rule.nth() : randoms[i].nextDouble() < rule.probability();
            if (!fires) {
                continue;
            }
            switch (rule.kind()) {
                case DROP -> {
                    drop = true;
                    lastDropRule = lastDropRule == 0 ? i + 1 : lastDropRule;
                }
                case DUPLICATE -> {
                    duplicate = true;
                    lastDuplicateRule = lastDuplicateRule == 0 ? i + 1 : lastDuplicateRule;
                }
                case CORRUPT -> {
                    if (corruptWith == null) {
                        corruptWith = randoms[i];
                        lastCorruptRule = i + 1;
                    }
                }
                case DELAY -> {
                    delay += rule.nanos();
                    lastDelayRules[lastDelayRuleCount++] = i + 1;
                }
                case REORDER -> {
                    reorder += 1 + randoms[i].nextLong(rule.nanos());
                    lastDelayRules[lastDelayRuleCount++] = i + 1;
                }
            }
        }
        lastHeldBackNanos = delay + reorder;
        if (drop) {
            dropped++;
            return DROP;
        }
        if (corruptWith != null && corrupt(frame, length, opcode != null, corruptWith)) {
            corrupted++;
            lastCorruptUnderIcrc = opcode != null;
        } else {
            lastCorruptRule = 0;
        }
        if (delay > 0) {
            delayed++;
        }
        if (reorder > 0) {
            reordered++;
        }
        duplicatePending = duplicate;
        return nominalDeliveryNanos + delay + reorder;
    }

    @Override
    public long duplicateDeliveryTimeNanos(byte[] frame, int length, long transmitNanos, long deliveryNanos) {
        if (!duplicatePending) {
            return DROP;
        }
        duplicatePending = false;
        duplicated++;
        return deliveryNanos;
    }

    @Override
    public List<String> lastFrameFaults() {
        if (lastDropRule != 0) {
            return List.of(FaultComments.droppedBy(lastDropRule));
        }
        List<String> notes = new ArrayList<>(2);
        if (lastCorruptRule != 0) {
            notes.add((lastCorruptUnderIcrc ? "ICRC corrupted by rule " : "corrupted by rule ") + lastCorruptRule);
        }
        if (lastDelayRuleCount > 0) {
            StringBuilder note = new StringBuilder("held back ").append(microseconds(lastHeldBackNanos))
                    .append(lastDelayRuleCount == 1 ? " by rule " : " by rules ");
            for (int i = 0; i < lastDelayRuleCount; i++) {
                note.append(i == 0 ? "" : i == lastDelayRuleCount - 1 ? " and " : ", ").append(lastDelayRules[i]);
            }
            notes.add(note.toString());
        }
        return notes;
    }

    @Override
    public List<String> lastDuplicateFaults() {
        if (lastDuplicateRule == 0) {
            return List.of();
        }
        List<String> notes = new ArrayList<>(lastFrameFaults());
        notes.add("duplicated by rule " + lastDuplicateRule);
        return notes;
    }

    /** {@code 6 µs}, {@code 2.5 µs}, {@code 0.125 µs}: the fewest decimals that say the time to the nanosecond. */
    static String microseconds(long nanos) {
        return BigDecimal.valueOf(nanos, 3).stripTrailingZeros().toPlainString() + " µs";
    }

    /**
     * XORs one byte with a random non-zero value: for RoCE, from the BTH's PSN up to the ICRC
     * (covered by the ICRC, parsed by nobody before the ICRC check, so the receiver's verdict is
     * BAD_ICRC); otherwise anywhere after the Ethernet header. {@code packet} holds the parse.
     */
    private boolean corrupt(byte[] frame, int length, boolean roce, SplittableRandom random) {
        int from = roce ? packet.bthOffset() + BTH_PSN_OFFSET : FrameSwitch.ETHERNET_HEADER_LENGTH;
        int to = roce ? packet.icrcOffset() : length;
        if (to <= from) {
            return false;
        }
        int at = from + random.nextInt(to - from);
        frame[at] ^= (byte) (1 + random.nextInt(255));
        return true;
    }
}
