package org.roce4j.emulator.transport;

import org.roce4j.wire.Psn;

/**
 * What a QP's requester and completer share, as rxe's {@code rxe_req.c} and {@code rxe_comp.c}
 * both read {@code qp->req.psn} and {@code qp->comp.psn}: the PSNs sent and not yet acknowledged,
 * and the READ and atomic credits in use. The requester moves the front ({@link #nextPsn}), the
 * completer the back ({@link #unackedPsn}); neither reads the other's fields.
 */
public final class SendWindow {
    /**
     * rxe's window ({@code rxe_param.h} RXE_MAX_UNACKED_PSNS): a parameter of the transport engine,
     * which is rxe's on every profile, not a limit a device reports.
     */
    static final int MAX_UNACKED_PSNS = 128;

    /** The PSN of the next packet sent (rxe {@code req.psn}); a go-back moves it back. */
    int nextPsn;
    /** The oldest PSN not yet acknowledged (rxe {@code comp.psn}). */
    int unackedPsn;
    /** READs and atomics started and not finished: what {@code max_rd_atomic} limits (IBTA 9.5.7). */
    int readAtomicInFlight;

    /** sq_psn set by a modify: nothing sent, nothing to acknowledge. */
    void startAt(int psn) {
        nextPsn = psn;
        unackedPsn = psn;
    }

    /** True while packets were sent that no response has acknowledged yet. */
    boolean hasOutstandingPackets() {
        return Psn.compare(nextPsn, unackedPsn) > 0;
    }

    /** Whether a response for {@code psn} answers a packet sent and not yet acknowledged (rxe_comp.c check_psn). */
    boolean isOutstanding(int psn) {
        return Psn.compare(psn, unackedPsn) >= 0 && Psn.compare(psn, nextPsn) < 0;
    }

    /** rxe's window ({@code RXE_MAX_UNACKED_PSNS}): no new packet while this many PSNs are unacknowledged. */
    boolean isFull() {
        return room() <= 0;
    }

    /** {@return how many more PSNs may be sent before the window is full ({@link #isFull})} */
    int room() {
        return MAX_UNACKED_PSNS - Psn.distance(unackedPsn, nextPsn);
    }
}
