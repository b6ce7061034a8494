package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.invoke.MethodHandles;

import java.lang.foreign.MemorySegment;

import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.VerbsException;

/**
 * A memory window: {@code struct ibv_mw *}. {@code ibv_alloc_mw} and {@code ibv_dealloc_mw} are inline
 * functions of verbs.h, one call each through {@code context->ops} ({@link Ops}); the rkey is read from the
 * struct each time, since the provider's {@code bind_mw} writes it back there.
 */
final class IbvMw extends Resource implements Mw {
    private static final long RKEY = Layouts.offset(Layouts.IBV_MW, "rkey");
    private static final long TYPE = Layouts.offset(Layouts.IBV_MW, "type");

    final IbvPd pd;
    final MemorySegment mw;

    private IbvMw(IbvPd pd, MemorySegment mw) {
        this.pd = pd;
        this.mw = mw;
    }

    /** {@code ibv_alloc_mw}: EOPNOTSUPP when the provider has no {@code alloc_mw}, as the inline function says. */
    static IbvMw allocate(IbvPd pd, MwType type) {
        MemorySegment fn = pd.context.op("alloc_mw");
        if (fn.equals(MemorySegment.NULL)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_alloc_mw: the provider has no alloc_mw");
        }
        MemorySegment mw = LibIbverbs.pointer("ibv_alloc_mw", MethodHandles.insertArguments(Ops.ALLOC_MW, 0, fn),
                pd.pd, type.value());
        return new IbvMw(pd, mw.reinterpret(Layouts.IBV_MW.byteSize()));
    }

    @Override
    String kind() {
        return "memory window";
    }

    @Override
    public Pd pd() {
        return pd;
    }

    @Override
    public int rkey() {
        return mw.get(JAVA_INT, RKEY);
    }

    @Override
    public MwType type() {
        return MwType.of(mw.get(JAVA_INT, TYPE));
    }

    @Override
    public void close() {
        closeOnce("ibv_dealloc_mw", "", () -> {
            int errno = LibIbverbs.statusOf(pd.context.op("dealloc_mw"), Ops.DEALLOC_MW, mw);
            if (errno != 0) {
                throw new VerbsException(Errno.of(errno), "ibv_dealloc_mw failed (errno " + errno + ")");
            }
            pd.removeChild();
        });
    }
}
