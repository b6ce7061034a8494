package org.roce4j.verbs;

/** An address handle: {@code struct ibv_ah}, the destination of UD sends. */
public interface Ah extends AutoCloseable {
    /** {@return the protection domain the handle belongs to} */
    Pd pd();

    /** {@return the address vector the handle was created with} */
    AhAttr attr();

    /** {@code ibv_destroy_ah}. */
    @Override
    void close();
}
