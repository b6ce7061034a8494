package org.roce4j.verbs;

/**
 * A post that failed synchronously, as {@code ibv_post_send}/{@code ibv_post_recv} fail with
 * {@code bad_wr}: the work requests before {@link #index()} were posted, the one at the index and
 * those after it were not.
 */
public final class BadWorkRequestException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** Position of the bad work request in the posted list. */
    private final int index;
    /** The bad work request's wr_id. */
    private final long wrId;

    /**
     * A failed post.
     *
     * @param errno   what libibverbs returns for it
     * @param index   the position of the bad request in the list (0 for a single post)
     * @param wrId    its wr_id
     * @param message why it is bad
     */
    public BadWorkRequestException(Errno errno, int index, long wrId, String message) {
        super(errno, "work request #" + index + " (wr_id " + Long.toUnsignedString(wrId) + "): " + message);
        this.index = index;
        this.wrId = wrId;
    }

    /** {@return the position of the bad work request in the posted list (0 for a single post)} */
    public int index() {
        return index;
    }

    /** {@return the bad work request's wr_id} */
    public long wrId() {
        return wrId;
    }
}
