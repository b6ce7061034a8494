package org.roce4j.verbs;

/**
 * A receive work request: {@code struct ibv_recv_wr}. Mutable and reusable: a backend copies what it
 * needs at post time, so the same object can be posted again at once.
 */
public final class RecvWr {
    private long wrId;
    private final ScatterGatherList sgList = new ScatterGatherList();

    /** An empty receive (wr_id 0, no SGE) to fill in, post, and reuse. */
    public RecvWr() {
    }

    /**
     * {@return a receive of {@code length} bytes into a registered region at {@code offset}}
     *
     * @param wrId   the wr_id its completion carries
     * @param mr     the region (LOCAL_WRITE)
     * @param offset where in it
     * @param length how many bytes
     */
    public static RecvWr of(long wrId, Mr mr, long offset, int length) {
        return new RecvWr().wrId(wrId).sge(mr, offset, length);
    }

    /** {@return the wr_id its completion carries ({@code wr_id})} */
    public long wrId() {
        return wrId;
    }

    /**
     * {@return this request, with its wr_id set}
     *
     * @param id the wr_id
     */
    public RecvWr wrId(long id) {
        wrId = id;
        return this;
    }

    /** {@return the buffers the message lands in ({@code sg_list})} */
    public ScatterGatherList sgList() {
        return sgList;
    }

    /**
     * {@return this request, with one more SGE}
     *
     * @param address the buffer's virtual address
     * @param length  its length
     * @param lkey    the lkey of its region
     */
    public RecvWr sge(long address, int length, int lkey) {
        sgList.add(address, length, lkey);
        return this;
    }

    /**
     * {@return this request, with one more SGE: {@code length} bytes at {@code offset} of {@code mr}}
     *
     * @param mr     the region
     * @param offset where in it
     * @param length how many bytes
     */
    public RecvWr sge(Mr mr, long offset, int length) {
        sgList.add(mr, offset, length);
        return this;
    }

    /** {@return this request, its SGEs and wr_id cleared for reuse} */
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
