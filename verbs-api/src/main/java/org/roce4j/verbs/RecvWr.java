package org.roce4j.verbs;

/**
 * A receive work request: {@code struct ibv_recv_wr}. Mutable and reusable: a backend copies what it
 * needs at post time, so the same object can be posted again at once.
 */
public final class RecvWr {
    private long wrId;
    private final ScatterGatherList sgList = new ScatterGatherList();

    /** A receive of {@code length} bytes into a registered region at {@code offset}. */
    public static RecvWr of(long wrId, Mr mr, long offset, int length) {
        return new RecvWr().wrId(wrId).sge(mr, offset, length);
    }

    public long wrId() {
        return wrId;
    }

    public RecvWr wrId(long id) {
        wrId = id;
        return this;
    }

    public ScatterGatherList sgList() {
        return sgList;
    }

    public RecvWr sge(long address, int length, int lkey) {
        sgList.add(address, length, lkey);
        return this;
    }

    public RecvWr sge(Mr mr, long offset, int length) {
        sgList.add(mr, offset, length);
        return this;
    }

    /** Clears the SGEs and the wr_id for reuse. */
    public RecvWr reset() {
        wrId = 0;
        sgList.clear();
        return this;
    }

    @Override
    public String toString() {
        return "RecvWr{wr_id=" + Long.toUnsignedString(wrId) + ", sg_list=" + sgList + "}";
    }
}
