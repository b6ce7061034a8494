package org.roce4j.examples;

import java.lang.foreign.ValueLayout;
import java.util.EnumSet;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.SendWr;

/** Changes an {@link AtomicCounter} from another node with RDMA atomics on a connected RC QP. */
public final class CounterClient {
    private final Endpoint endpoint;
    private final Qp qp;
    private final long address;
    private final int rkey;
    private final Mr result;
    private final SendWr atomic = new SendWr();
    private long wrIds;

    /**
     * A client of the counter at {@code address}/{@code rkey}.
     *
     * @param endpoint the client's side
     * @param qp       an RC QP in RTS, connected to the counter owner's
     * @param address  the counter's remote address
     * @param rkey     its rkey
     */
    public CounterClient(Endpoint endpoint, Qp qp, long address, int rkey) {
        this.endpoint = endpoint;
        this.qp = qp;
        this.address = address;
        this.rkey = rkey;
        this.result = endpoint.register(8, EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    /**
     * {@return the counter's value before adding {@code delta}: ATOMIC_FETCH_AND_ADD}
     *
     * @param delta what to add
     */
    public long fetchAndAdd(long delta) {
        qp.postSend(SendWr.fetchAndAdd(++wrIds, result, 0, address, rkey, delta));
        Polling.next(endpoint.cq());
        return result.segment().get(ValueLayout.JAVA_LONG, 0);
    }

    /**
     * {@return the counter's value before the operation; it is {@code expected} exactly when the swap happened}:
     * ATOMIC_CMP_AND_SWP
     *
     * @param expected the value the counter must have
     * @param newValue what it becomes then
     */
    public long compareAndSwap(long expected, long newValue) {
        qp.postSend(SendWr.compareAndSwap(++wrIds, result, 0, address, rkey, expected, newValue));
        Polling.next(endpoint.cq());
        return result.segment().get(ValueLayout.JAVA_LONG, 0);
    }
}
