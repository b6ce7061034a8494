package org.roce4j.verbs;

/**
 * A memory window: {@code struct ibv_mw}, from {@link Pd#allocMw}. Bound to a range of a memory region
 * (which must allow {@link AccessFlag#MW_BIND}) with rights of its own, it lets peers reach that range
 * under its rkey and nothing else (IBTA 10.6.7). Closing it is {@code ibv_dealloc_mw}.
 */
public interface Mw extends AutoCloseable {
    /** {@return the protection domain the window belongs to ({@code pd})} */
    Pd pd();

    /**
     * {@return the rkey as {@code ibv_mw.rkey} holds it: set at allocation and by a successful
     * {@link Qp#bindMw} (type 1), which writes the new key back as libibverbs does; a type 2 bind
     * by a work request leaves it as it was (the caller chose the new key)}
     */
    int rkey();

    /** {@return the window's type ({@code type})} */
    MwType type();

    /** {@code ibv_dealloc_mw}: a bound window is unbound first. */
    @Override
    void close();

    /**
     * {@return {@code rkey} with its low 8 bits (the key byte a consumer owns) incremented, wrapping:
     * {@code ibv_inc_rkey}}; the key a bind gives a window so that holders of the old key lose access
     *
     * @param rkey the current key
     */
    static int incRkey(int rkey) {
        return (rkey & ~0xFF) | ((rkey + 1) & 0xFF);
    }
}
