package org.roce4j.tools.analyze;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Every violation counted by kind; the first {@value #KEPT} kept with their frame and detail. */
final class ViolationLog {
    static final int KEPT = 1000;
    private final List<Violation> kept = new ArrayList<>();
    private final Map<ViolationKind, Long> counts = new EnumMap<>(ViolationKind.class);

    void add(ViolationKind kind, long frame, String detail) {
        counts.merge(kind, 1L, Long::sum);
        if (kept.size() < KEPT) {
            kept.add(new Violation(kind, frame, detail));
        }
    }

    List<Violation> kept() {
        return List.copyOf(kept);
    }

    Map<ViolationKind, Long> counts() {
        return new EnumMap<>(counts);
    }

    long total() {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
