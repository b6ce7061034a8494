package org.roce4j.emulator;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.roce4j.emulator.fabric.FrameFilter;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.PacketInfo;

/**
 * A scripted fault plan for {@link org.roce4j.emulator.fabric.Fabric#filter}: rules such as "drop the
 * 3rd WRITE packet from A", "drop every ACK", "delay the READ response", applied in order (the first
 * rule that acts decides), and a record of every frame the fabric carried, parsed with
 * {@link PacketInfo}, whether it was dropped and when it was sent.
 */
final class FaultScript implements FrameFilter {
    /** One frame as the fabric saw it. {@code syndrome} is the AETH syndrome, or -1 without an AETH. */
    record Frame(int index, boolean fromA, Opcode opcode, int psn, int syndrome, long rethVa, int rethLength,
                 long sentNanos, boolean dropped) {
        boolean isRequest() {
            return opcode.isRequest();
        }

        boolean isAck() {
            return opcode.kind() == OperationKind.ACKNOWLEDGE && syndrome >>> 5 == 0;
        }

        boolean isNak(int code) {
            return opcode.kind() == OperationKind.ACKNOWLEDGE && syndrome == (0x60 | code);
        }

        boolean isRnrNak() {
            return opcode.kind() == OperationKind.ACKNOWLEDGE && (syndrome >>> 5) == 1;
        }

        @Override
        public String toString() {
            return (fromA ? "A→B " : "B→A ") + opcode.displayName() + " psn " + psn
                    + (syndrome >= 0 ? String.format(" aeth 0x%02x", syndrome) : "") + (dropped ? " DROPPED" : "");
        }
    }

    private interface Rule {
        /** Returns the delivery time, {@link #DROP}, or {@link Long#MAX_VALUE} for "not mine". */
        long decide(Frame frame, long nominalNanos);
    }

    private final List<Rule> rules = new ArrayList<>();
    private final List<Frame> frames = new ArrayList<>();

    /** Drops the {@code n}th frame (from 1) that matches. */
    FaultScript dropNth(int n, Predicate<Frame> which) {
        int[] seen = {0};
        rules.add((f, nominal) -> which.test(f) && ++seen[0] == n ? DROP : Long.MAX_VALUE);
        return this;
    }

    /** Drops the first {@code count} frames that match. */
    FaultScript dropFirst(int count, Predicate<Frame> which) {
        int[] seen = {0};
        rules.add((f, nominal) -> which.test(f) && ++seen[0] <= count ? DROP : Long.MAX_VALUE);
        return this;
    }

    /** Drops every frame that matches. */
    FaultScript dropAll(Predicate<Frame> which) {
        rules.add((f, nominal) -> which.test(f) ? DROP : Long.MAX_VALUE);
        return this;
    }

    /** Delays the {@code n}th matching frame (from 1) by {@code nanos} beyond the link delay. */
    FaultScript delayNth(int n, long nanos, Predicate<Frame> which) {
        int[] seen = {0};
        rules.add((f, nominal) -> which.test(f) && ++seen[0] == n ? nominal + nanos : Long.MAX_VALUE);
        return this;
    }

    @Override
    public long deliveryTimeNanos(byte[] frame, int length, long transmitNanos, long nominalDeliveryNanos) {
        PacketInfo p = new PacketInfo();
        if (!p.parseFrame(frame, 0, length)) {
            return nominalDeliveryNanos;
        }
        boolean fromA = frame[11] == 1; // source MAC 02:00:00:00:00:01 is node A (TwoNodes)
        int syndrome = p.opcode().has(HeaderType.AETH) ? p.aethSyndrome() : -1;
        boolean reth = p.opcode().has(HeaderType.RETH);
        Frame f = new Frame(frames.size(), fromA, p.opcode(), p.psn(), syndrome, reth ? p.rethVirtualAddress() : 0,
                reth ? p.rethDmaLength() : 0, transmitNanos, false);
        long decision = nominalDeliveryNanos;
        for (Rule rule : rules) {
            long d = rule.decide(f, nominalDeliveryNanos);
            if (d != Long.MAX_VALUE) {
                decision = d;
                break;
            }
        }
        frames.add(decision == DROP ? new Frame(f.index, fromA, f.opcode, f.psn, syndrome, f.rethVa, f.rethLength,
                transmitNanos, true) : f);
        return decision;
    }

    List<Frame> frames() {
        return List.copyOf(frames);
    }

    List<Frame> framesFromA() {
        return frames.stream().filter(Frame::fromA).toList();
    }

    List<Frame> framesFromB() {
        return frames.stream().filter(f -> !f.fromA()).toList();
    }

    /** PSNs of the requests A sent, in order, retransmissions included. */
    List<Integer> requestPsnsFromA() {
        return frames.stream().filter(f -> f.fromA() && f.isRequest()).map(Frame::psn).toList();
    }

    long count(Predicate<Frame> which) {
        return frames.stream().filter(which).count();
    }

    // ---- predicates ---------------------------------------------------------------------

    static Predicate<Frame> fromA(OperationKind kind) {
        return f -> f.fromA() && f.opcode().kind() == kind;
    }

    static Predicate<Frame> fromB(OperationKind kind) {
        return f -> !f.fromA() && f.opcode().kind() == kind;
    }

    static Predicate<Frame> requestFromA(int psn) {
        return f -> f.fromA() && f.isRequest() && f.psn() == psn;
    }

    static Predicate<Frame> ackFromB() {
        return f -> !f.fromA() && f.isAck();
    }
}
