package org.roce4j.emulator.fabric;

import java.util.SplittableRandom;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;

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
                case DROP -> drop = true;
                case DUPLICATE -> duplicate = true;
                case CORRUPT -> corruptWith = corruptWith == null ? randoms[i] : corruptWith;
                case DELAY -> delay += rule.nanos();
                case REORDER -> reorder += 1 + randoms[i].nextLong(rule.nanos());
            }
        }
        if (drop) {
            dropped++;
            return DROP;
        }
        if (corruptWith != null && corrupt(frame, length, opcode != null, corruptWith)) {
            corrupted++;
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
