package org.roce4j.verbs;

/**
 * A post that failed synchronously, as {@code ibv_post_send}/{@code ibv_post_recv} fail with
 * {@code bad_wr}: the work requests before {@link #index()} were posted, the one at the index and
 * those after it were not.
 */
public final class BadWorkRequestException extends VerbsException {
    private static final long serialVersionUID = 1L;

    private final int index;
    private final long wrId;

    public BadWorkRequestException(Errno errno, int index, long wrId, String message) {
        super(errno, "work request #" + index + " (wr_id " + Long.toUnsignedString(wrId) + "): " + message);
        this.index = index;
        this.wrId = wrId;
    }

    /** Position of the bad work request in the posted list (0 for a single post). */
    public int index() {
        return index;
    }

    /** The bad work request's wr_id. */
    public long wrId() {
        return wrId;
    }
}
