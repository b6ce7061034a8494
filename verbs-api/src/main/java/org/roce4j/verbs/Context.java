package org.roce4j.verbs;

import java.time.Duration;
import java.util.Optional;

/**
 * An open device: {@code struct ibv_context}. Owns protection domains, completion queues and
 * completion channels. Closing it while any of those is alive fails with EBUSY.
 */
public interface Context extends AutoCloseable {
    Device device();

    /** {@code ibv_query_device}. */
    DeviceAttr queryDevice();

    /** {@code ibv_query_port}; ports are numbered from 1, anything else is EINVAL. */
    PortAttr queryPort(int portNum);

    /**
     * The port's hardware counters (Linux: {@code hw_counters} in sysfs, {@code rdma statistic}),
     * names as Soft-RoCE's. Ports are numbered from 1, anything else is EINVAL; a provider without
     * counters throws EOPNOTSUPP.
     */
    default PortCounters queryPortCounters(int portNum) {
        throw new VerbsException(Errno.EOPNOTSUPP, "query port counters: not supported by this provider");
    }

    /** {@code ibv_query_gid}; an index past the table or an empty entry is EINVAL. */
    Gid queryGid(int portNum, int index);

    /** {@code ibv_alloc_pd}. */
    Pd allocPd();

    /** {@code ibv_create_comp_channel}. */
    CompChannel createCompChannel();

    /**
     * {@code ibv_create_cq}: a CQ of at least {@code cqe} entries (EINVAL when {@code cqe} is below 1
     * or above {@link DeviceAttr#maxCqe()}), optionally tied to a completion channel.
     */
    Cq createCq(int cqe, CompChannel channel, int compVector);

    default Cq createCq(int cqe) {
        return createCq(cqe, null, 0);
    }

    /** The next asynchronous event if there is one: {@code ibv_get_async_event} on a non-blocking fd. */
    Optional<AsyncEvent> pollAsyncEvent();

    /** Waits up to {@code timeout} for an asynchronous event. */
    Optional<AsyncEvent> getAsyncEvent(Duration timeout);

    /** {@code ibv_close_device}; EBUSY while PDs, CQs or completion channels are still open. */
    @Override
    void close();
}
