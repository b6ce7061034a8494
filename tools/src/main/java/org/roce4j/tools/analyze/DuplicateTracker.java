package org.roce4j.tools.analyze;

import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;

/**
 * The responder's side of duplicates (IBTA 9.7.5.1.1): requests it had already received, and the
 * response that answered each. A duplicate is matched to the first later response of the kind that
 * answers it (an ACK for a SEND or WRITE, a READ response starting at or after its PSN, an Atomic
 * Acknowledge for its PSN). The capture may miss a response (lost before the capture point), so
 * this is the capture's view, not the responder's counters.
 */
final class DuplicateTracker {
    private static final int PENDING_LIMIT = 4096;
    private static final int ATOMIC_RESULTS_KEPT = 256;

    private record Pending(OperationKind kind, int psn) {}

    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final Map<OperationKind, Long> byKind = new EnumMap<>(OperationKind.class);
    private final Map<DuplicateAnswer, Long> answers = new EnumMap<>(DuplicateAnswer.class);
    /** Original values of the latest atomics by PSN, as rxe's responder caches its last atomic results. */
    private final Map<Integer, Long> atomicOriginals = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Long> eldest) {
            return size() > ATOMIC_RESULTS_KEPT;
        }
    };

    void duplicateRequest(OperationKind kind, int psn) {
        byKind.merge(kind, 1L, Long::sum);
        if (pending.size() == PENDING_LIMIT) {
            pending.removeFirst();
            answers.merge(DuplicateAnswer.UNANSWERED, 1L, Long::sum);
        }
        pending.addLast(new Pending(kind, psn));
    }

    /** A positive response: ACK, READ response or Atomic Acknowledge at {@code psn}. */
    void response(OperationKind responseKind, Position position, int psn) {
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending duplicate = it.next();
            DuplicateAnswer answer = answerOf(duplicate.kind, responseKind, position);
            if (answer != null && !Psn.isBefore(psn, duplicate.psn)) {
                it.remove();
                answers.merge(answer, 1L, Long::sum);
                return;
            }
        }
    }

    private static DuplicateAnswer answerOf(OperationKind request, OperationKind response, Position position) {
        return switch (request) {
            case RDMA_READ_REQUEST -> response == OperationKind.RDMA_READ_RESPONSE && position.startsMessage()
                    ? DuplicateAnswer.READ_RE_EXECUTED : null;
            case ATOMIC -> response == OperationKind.ATOMIC_ACKNOWLEDGE ? DuplicateAnswer.ATOMIC_REPLAYED : null;
            default -> response == OperationKind.ACKNOWLEDGE ? DuplicateAnswer.RE_ACK : null;
        };
    }

    /**
     * Records an Atomic Acknowledge's original value; returns the value an earlier acknowledgement of
     * the same PSN carried when it differs (the atomic ran twice), else null.
     */
    Long atomicResult(int psn, long originalValue) {
        Long earlier = atomicOriginals.putIfAbsent(psn, originalValue);
        return earlier != null && earlier != originalValue ? earlier : null;
    }

    Map<OperationKind, Long> byKind() {
        return new EnumMap<>(byKind);
    }

    /** How each duplicate was answered; those still waiting count as unanswered. */
    Map<DuplicateAnswer, Long> answers() {
        Map<DuplicateAnswer, Long> all = new EnumMap<>(answers);
        if (!pending.isEmpty()) {
            all.merge(DuplicateAnswer.UNANSWERED, (long) pending.size(), Long::sum);
        }
        return all;
    }

    long total() {
        return byKind.values().stream().mapToLong(Long::longValue).sum();
    }
}
