package org.roce4j.emulator.cm;

import org.roce4j.emulator.node.NetworkPath;

/**
 * The one MAD of a connection that waits for an answer (REQ, REP, DREQ, SIDR_REQ), as ib_mad sends
 * it for cm.c: sent again every {@code timeout} until answered or the retries are spent; then the
 * give-up action runs ({@code cm_process_send_error}). An MRA stretches the wait
 * ({@code ib_modify_mad}).
 */
final class OutstandingMad {
    private final CommunicationManager cm;
    private final NetworkPath path;
    private final Runnable giveUp;
    private byte[] mad;
    private int retriesLeft;
    private long timeoutMs;
    private CmTimers.Timer timer;

    OutstandingMad(CommunicationManager cm, NetworkPath path, Runnable giveUp) {
        this.cm = cm;
        this.path = path;
        this.giveUp = giveUp;
    }

    /** Sends {@code bytes}, to be sent again every {@code waitMs} at most {@code retries} times. */
    void send(byte[] bytes, int retries, long waitMs) {
        mad = bytes;
        retriesLeft = retries;
        timeoutMs = waitMs;
        cm.sendMad(path, mad);
        arm();
    }

    boolean isWaiting() {
        return mad != null;
    }

    /** cm_mra_handler → ib_modify_mad: the MAD waits {@code waitMs} from now. */
    void stretch(long waitMs) {
        timeoutMs = waitMs;
        arm();
    }

    /** The answer came (or the connection moved on): no more sends. */
    void cancel() {
        mad = null;
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    private void arm() {
        if (timer != null) {
            timer.cancel();
        }
        timer = cm.schedule(timeoutMs * 1_000_000L, this::due);
    }

    private void due() {
        timer = null;
        if (mad == null) {
            return;
        }
        if (retriesLeft > 0) {
            retriesLeft--;
            cm.sendMad(path, mad);
            arm();
            return;
        }
        mad = null;
        giveUp.run();
    }
}
