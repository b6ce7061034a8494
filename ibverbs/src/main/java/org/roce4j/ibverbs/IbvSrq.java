package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.roce4j.verbs.Pd;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqAttr;
import org.roce4j.verbs.SrqAttrMask;

/** A shared receive queue: {@code struct ibv_srq *}. */
final class IbvSrq extends Resource implements Srq {
    final IbvPd pd;
    final MemorySegment srq;
    private final Arena arena = Arena.ofShared();
    private final RecvWrChain chain;

    IbvSrq(IbvPd pd, MemorySegment srq) {
        this.pd = pd;
        this.srq = srq;
        this.chain = new RecvWrChain(arena);
    }

    @Override
    String kind() {
        return "shared receive queue";
    }

    @Override
    public Pd pd() {
        return pd;
    }

    @Override
    public void postRecv(RecvWr wr) {
        Objects.requireNonNull(wr, "wr");
        synchronized (chain) {
            checkOpen("ibv_post_srq_recv");
            chain.post("ibv_post_srq_recv", pd.context.postSrqRecv, srq, wr);
        }
    }

    @Override
    public void postRecv(List<RecvWr> wrs) {
        Objects.requireNonNull(wrs, "wrs");
        synchronized (chain) {
            checkOpen("ibv_post_srq_recv");
            chain.post("ibv_post_srq_recv", pd.context.postSrqRecv, srq, wrs);
        }
    }

    @Override
    public void modify(SrqAttr attr, Set<SrqAttrMask> mask) {
        Objects.requireNonNull(attr, "attr");
        Objects.requireNonNull(mask, "mask");
        checkOpen("ibv_modify_srq");
        int bits = 0;
        for (SrqAttrMask m : mask) {
            bits |= m.bit();
        }
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment a = scratch.allocate(Layouts.IBV_SRQ_ATTR);
            a.set(JAVA_INT, 0, attr.maxWr());
            a.set(JAVA_INT, 4, attr.maxSge());
            a.set(JAVA_INT, 8, attr.srqLimit());
            LibIbverbs.status("ibv_modify_srq", pd.context.lib.modifySrq, srq, a, bits);
        }
    }

    @Override
    public SrqAttr query() {
        checkOpen("ibv_query_srq");
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment a = scratch.allocate(Layouts.IBV_SRQ_ATTR);
            LibIbverbs.status("ibv_query_srq", pd.context.lib.querySrq, srq, a);
            return new SrqAttr(a.get(JAVA_INT, 0), a.get(JAVA_INT, 4), a.get(JAVA_INT, 8));
        }
    }

    @Override
    public void close() {
        closeOnce("ibv_destroy_srq", "QPs using it", () -> {
            synchronized (chain) {
                LibIbverbs.status("ibv_destroy_srq", pd.context.lib.destroySrq, srq);
                pd.context.srqs.remove(srq.address());
                pd.removeChild();
                arena.close();
            }
        });
    }
}
