package org.roce4j.emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.roce4j.emulator.fabric.FabricCounters;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.WorkCompletion;

/**
 * What a user can observe of a run on {@link TwoNodes}: to compare a run with a pcap tap — which turns packet trains
 * off, every frame going on its own and every packet through the responder's full checks — with the same run
 * without one.
 */
record ObservedRun(int steps, long endNanos, Map<RnicCounter, Long> countersA, Map<RnicCounter, Long> countersB,
                   FabricCounters fabric, List<String> completions, List<QpState> states, byte[] target) {

    /** Two nodes, their fabric tapped to {@code tap} unless it is null. */
    static TwoNodes nodes(Path tap) {
        TwoNodes nodes = new TwoNodes();
        if (tap != null) {
            try {
                nodes.fabric.tap(tap);
            } catch (IOException e) {
                nodes.close();
                throw new UncheckedIOException(e);
            }
        }
        return nodes;
    }

    /**
     * Steps the fabric until nothing is left to do; {@return the run then: its steps (counted from {@code steps}),
     * time, counters, both sides' completions, the states of {@code qps} and the bytes of {@code target}}
     */
    static ObservedRun finish(TwoNodes nodes, int steps, MemorySegment target, Qp... qps) {
        int taken = steps;
        while (nodes.fabric.step()) {
            taken++;
        }
        List<String> completions = new ArrayList<>();
        for (WorkCompletion wc : nodes.a.pollAll()) {
            completions.add("A " + wc);
        }
        for (WorkCompletion wc : nodes.b.pollAll()) {
            completions.add("B " + wc);
        }
        return new ObservedRun(taken, nodes.now(), nodes.rnicA.counters(), nodes.rnicB.counters(),
                nodes.fabric.counters(), completions, Arrays.stream(qps).map(Qp::state).toList(),
                target.toArray(ValueLayout.JAVA_BYTE));
    }
}
