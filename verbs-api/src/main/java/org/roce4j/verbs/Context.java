package org.roce4j.verbs;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * An open device: {@code struct ibv_context}. Owns protection domains, completion queues and
 * completion channels. Closing it while any of those is alive fails with EBUSY.
 */
public interface Context extends AutoCloseable {
    /** {@return the device this context was opened on} */
    Device device();

    /** {@return the device's limits and identity: {@code ibv_query_device}} */
    DeviceAttr queryDevice();

    /**
     * {@return the capabilities above bit 31 of the device's capability word: {@code device_cap_flags_ex} of
     * {@code ibv_query_device_ex}} (ATOMIC WRITE, FLUSH's placement types, ...)
     *
     * @throws VerbsException EOPNOTSUPP from a provider without {@code ibv_query_device_ex}
     */
    default java.util.Set<DeviceCapFlagEx> queryDeviceCapFlagsEx() {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_query_device_ex: not supported by this provider");
    }

    /**
     * {@return what the device can do with on-demand-paging regions: {@code odp_caps} of
     * {@code ibv_query_device_ex}} {@link OdpCaps#NONE} from a device without ODP.
     *
     * @throws VerbsException EOPNOTSUPP from a provider without {@code ibv_query_device_ex}
     */
    default OdpCaps queryOdpCaps() {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_query_device_ex: not supported by this provider");
    }

    /**
     * {@return the port's state and limits: {@code ibv_query_port}}
     *
     * @param portNum the port, from 1; anything else is EINVAL
     */
    PortAttr queryPort(int portNum);

    /**
     * {@return the port's hardware counters (Linux: {@code hw_counters} in sysfs, {@code rdma statistic}),
     * named as Soft-RoCE names them}
     *
     * @param portNum the port, from 1; anything else is EINVAL
     * @throws VerbsException EOPNOTSUPP from a provider without counters
     */
    default PortCounters queryPortCounters(int portNum) {
        throw new VerbsException(Errno.EOPNOTSUPP, "query port counters: not supported by this provider");
    }

    /**
     * {@return entry {@code index} of the port's GID table: {@code ibv_query_gid}}
     *
     * @param portNum the port, from 1
     * @param index   the GID index; an index past the table or an empty entry is EINVAL
     */
    Gid queryGid(int portNum, int index);

    /**
     * {@return entry {@code index} of the port's GID table with its type and net device: {@code ibv_query_gid_ex}}
     *
     * @param portNum the port, from 1
     * @param index   the GID index
     * @throws VerbsException EINVAL past the table, ENODATA for an empty entry inside it
     */
    GidEntry queryGidEx(int portNum, int index);

    /**
     * {@return every valid GID entry of every port, by port and index: {@code ibv_query_gid_table}}
     */
    List<GidEntry> queryGidTable();

    /**
     * {@return the type of entry {@code index} of the port's GID table, as {@code ibv_query_gid_ex} gives it}
     *
     * @param portNum the port, from 1
     * @param index   the GID index
     * @throws VerbsException as {@link #queryGidEx}
     */
    default GidType queryGidType(int portNum, int index) {
        return queryGidEx(portNum, index).gidType();
    }

    /**
     * {@return the index of the port's GID for this IP address and RoCE version, or empty if the port has none}:
     * the lookup every RoCE program writes before it fills an address vector's {@code sgid_index}. An IPv4
     * address is found as its IPv4-mapped GID ({@code ::ffff:a.b.c.d}), as Linux fills the table.
     *
     * @param portNum the port, from 1
     * @param address an address of this host
     * @param type    the RoCE version wanted ({@link GidType#ROCE_V2} for Soft-RoCE and the emulator)
     */
    default OptionalInt findGidIndex(int portNum, InetAddress address, GidType type) {
        Gid wanted = Gid.of(address);
        return queryGidTable().stream()
                .filter(entry -> entry.portNum() == portNum && entry.gidType() == type && entry.gid().equals(wanted))
                .mapToInt(GidEntry::gidIndex).findFirst();
    }

    /**
     * {@return how many completion vectors the device has ({@code context->num_comp_vectors}); a CQ's
     * {@code compVector} must be below it}
     */
    int numCompVectors();

    /** {@return a new protection domain: {@code ibv_alloc_pd}} */
    Pd allocPd();

    /** {@return a new completion event channel: {@code ibv_create_comp_channel}} */
    CompChannel createCompChannel();

    /**
     * {@return a new completion queue: {@code ibv_create_cq}}
     *
     * @param cqe        the entries it must hold at least; EINVAL below 1 or above {@link DeviceAttr#maxCqe()}
     * @param channel    the completion channel its events go to, or null
     * @param compVector the completion vector (interrupt) to use, from 0 to {@link #numCompVectors()} - 1; anything
     *                   else is EINVAL (the kernel's {@code ib_uverbs_create_cq})
     */
    Cq createCq(int cqe, CompChannel channel, int compVector);

    /**
     * {@return a new completion queue with no completion channel: {@code ibv_create_cq(ctx, cqe, NULL, NULL, 0)}}
     *
     * @param cqe the entries it must hold at least
     */
    default Cq createCq(int cqe) {
        return createCq(cqe, null, 0);
    }

    /**
     * {@return a new extended completion queue: {@code ibv_create_cq_ex}} Same errors as {@link #createCq}, and
     * EOPNOTSUPP for fields the provider cannot give (rxe: anything beyond {@link CreateCqWcFlag#STANDARD}).
     *
     * @param attr its size, channel, vector and the fields its completions carry
     */
    default CqEx createCqEx(CqInitAttrEx attr) {
        throw new VerbsException(Errno.EOPNOTSUPP, "ibv_create_cq_ex: not supported by this provider");
    }

    /** {@return the next asynchronous event if there is one: {@code ibv_get_async_event} on a non-blocking fd} */
    Optional<AsyncEvent> pollAsyncEvent();

    /**
     * {@return the next asynchronous event, waiting up to {@code timeout} for one: {@code ibv_get_async_event}}
     *
     * @param timeout how long to wait
     */
    Optional<AsyncEvent> getAsyncEvent(Duration timeout);

    /** {@code ibv_close_device}; EBUSY while PDs, CQs or completion channels are still open. */
    @Override
    void close();
}
