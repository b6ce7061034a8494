package org.roce4j.ibverbs;

import java.lang.foreign.MemorySegment;

import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Pd;

/** An address handle: {@code struct ibv_ah *}. */
final class IbvAh extends Resource implements Ah {
    private final IbvPd pd;
    final MemorySegment ah;
    private final AhAttr attr;

    IbvAh(IbvPd pd, MemorySegment ah, AhAttr attr) {
        this.pd = pd;
        this.ah = ah;
        this.attr = attr;
    }

    @Override
    String kind() {
        return "address handle";
    }

    @Override
    public Pd pd() {
        return pd;
    }

    @Override
    public AhAttr attr() {
        return attr;
    }

    @Override
    public void close() {
        closeOnce("ibv_destroy_ah", "users", () -> {
            LibIbverbs.status("ibv_destroy_ah", pd.context.lib.destroyAh, ah);
            pd.removeChild();
        });
    }
}
