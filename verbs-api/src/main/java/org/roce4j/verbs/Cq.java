package org.roce4j.verbs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.roce4j.verbs.spi.ArgumentChecks;

/**
 * A completion queue: {@code struct ibv_cq}. Completions are polled in the order the work
 * completed; on a backend without threads of its own (the deterministic emulator) polling is what
 * drives the RNICs forward.
 */
public interface Cq extends AutoCloseable {
    /** {@return the context the CQ was created on} */
    Context context();

    /**
     * {@return the entries the CQ holds: {@code cq->cqe}, the depth the device granted at creation or at the
     * last {@link #resize}; at least what was asked (rxe grants 2^k - 1)}
     */
    int capacity();

    /**
     * {@code ibv_resize_cq}: makes the CQ hold at least {@code cqe} entries, keeping the completions it
     * holds, in order. EINVAL when {@code cqe} is below 1, above {@link DeviceAttr#maxCqe()}, or below the
     * number of completions the CQ holds now (rxe {@code rxe_cq_chk_attr}); the CQ is then unchanged.
     *
     * @param cqe the entries it must hold at least
     * @return the depth granted, what {@link #capacity()} reports from now on
     * @throws VerbsException EOPNOTSUPP from a provider that cannot resize
     */
    default int resize(int cqe) {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_resize_cq: not supported by this provider");
    }

    /** {@return the completion channel events go to, or null} */
    CompChannel channel();

    /**
     * {@return how many completions {@code ibv_poll_cq} moved into the array (up to its length), oldest first}
     *
     * @param completions where to put them
     * @throws VerbsException EINVAL (as {@code ibv_poll_cq}'s negative return) after a CQ overrun
     */
    int poll(WorkCompletion[] completions);

    /** {@return the oldest completion, if there is one} */
    default Optional<WorkCompletion> poll() {
        WorkCompletion[] one = new WorkCompletion[1];
        return poll(one) == 1 ? Optional.of(one[0]) : Optional.empty();
    }

    /**
     * {@return up to {@code max} completions, oldest first}
     *
     * @param max the most to take
     * @throws VerbsException EINVAL when {@code max} is negative
     */
    default List<WorkCompletion> poll(int max) {
        WorkCompletion[] some = new WorkCompletion[ArgumentChecks.requireNonNegative(max, "max")];
        int n = poll(some);
        List<WorkCompletion> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(some[i]);
        }
        return list;
    }

    /**
     * {@code ibv_req_notify_cq}: arms the CQ so that the next completion (with {@code solicitedOnly},
     * the next solicited receive or any error completion, IBTA 11.4.2.2) delivers one event to the
     * completion channel. EINVAL when the CQ has no channel.
     *
     * @param solicitedOnly wake only for solicited receives and errors
     */
    void reqNotify(boolean solicitedOnly);

    /** {@code ibv_destroy_cq}; EBUSY while a QP or SRQ uses it or events are unacknowledged. */
    @Override
    void close();
}
