package org.roce4j.verbs;

/** An address handle: {@code struct ibv_ah}, the destination of UD sends. */
public interface Ah extends AutoCloseable {
    Pd pd();

    AhAttr attr();

    /** {@code ibv_destroy_ah}. */
    @Override
    void close();
}
