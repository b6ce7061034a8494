package org.roce4j.examples;

import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;

/**
 * A 64-bit counter in registered memory that clients change with RDMA atomics: FETCH_AND_ADD hands
 * out tickets, CMP_AND_SWP resets it only if nobody moved it in between. The owner's CPU never
 * runs; the RNIC applies each atomic exactly once, even when a request is retransmitted (IBTA
 * 9.4.5: a duplicate atomic is answered from the responder's saved result).
 */
public final class AtomicCounter {
    private final Endpoint endpoint;
    private final Mr word;

    /**
     * Registers the counter (8 bytes, 8-byte aligned, starting at 0), with remote atomic access.
     *
     * @param endpoint the owner's side
     */
    public AtomicCounter(Endpoint endpoint) {
        this.endpoint = endpoint;
        this.word = endpoint.register(8, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_ATOMIC));
    }

    /** {@return the counter's remote address} */
    public long address() {
        return word.address();
    }

    /** {@return the counter's rkey} */
    public int rkey() {
        return word.rkey();
    }

    /** {@return the counter's value, read locally (atomics are in host byte order)} */
    public long value() {
        return word.segment().get(ValueLayout.JAVA_LONG, 0);
    }

    /** {@return a QP for one client, in INIT, whose responder allows atomics} */
    public Qp acceptQp() {
        return RcConnection.create(endpoint, QpCap.of(4, 4), Set.of(AccessFlag.REMOTE_ATOMIC));
    }
}
