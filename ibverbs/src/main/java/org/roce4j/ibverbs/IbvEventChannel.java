package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * {@code struct rdma_event_channel *}. Its fd is made non-blocking ({@link LibRdmacm#makeNonBlocking})
 * and waited on with poll(2): one fd for every id on the channel, no thread per id. The ids on the
 * channel are its children: closing it with ids left is EBUSY.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class IbvEventChannel extends Resource implements EventChannel {
    final CmRuntime runtime;
    final MemorySegment channel;
    private final int fd;

    private IbvEventChannel(CmRuntime runtime, MemorySegment channel, int fd) {
        this.runtime = runtime;
        this.channel = channel;
        this.fd = fd;
    }

    /** {@code rdma_create_event_channel}; its errno (ENODEV without RDMA devices, …) is the exception's. */
    static IbvEventChannel create(CmRuntime runtime) {
        MemorySegment channel = LibIbverbs.pointer("rdma_create_event_channel", runtime.cm.createEventChannel)
                .reinterpret(RdmacmLayouts.RDMA_EVENT_CHANNEL.byteSize());
        int fd = channel.get(JAVA_INT, Layouts.offset(RdmacmLayouts.RDMA_EVENT_CHANNEL, "fd"));
        try {
            runtime.cm.makeNonBlocking(fd);
        } catch (RuntimeException e) {
            LibIbverbs.call(runtime.cm.destroyEventChannel, channel);
            throw e;
        }
        return new IbvEventChannel(runtime, channel, fd);
    }

    @Override
    String kind() {
        return "event channel";
    }

    @Override
    public CmId createId(PortSpace space, Object context) {
        Objects.requireNonNull(space, "space");
        checkOpen("rdma_create_id");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment slot = arena.allocate(ADDRESS);
            // The native id's context stays NULL: the Java context lives on the Java id.
            LibIbverbs.status("rdma_create_id", runtime.cm.createId, channel, slot, MemorySegment.NULL, space.value());
            return adopt(slot.get(ADDRESS, 0), space, context);
        }
    }

    /** Wraps a new native id (made by rdma_create_id, or by librdmacm for a CONNECT_REQUEST) as an id on this channel. */
    IbvCmId adopt(MemorySegment id, PortSpace space, Object context) {
        IbvCmId created = new IbvCmId(runtime, this, id.reinterpret(RdmacmLayouts.RDMA_CM_ID.byteSize()), space, context);
        addChild();
        runtime.ids.put(created.id.address(), created);
        return created;
    }

    @Override
    public Optional<CmEvent> getEvent(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        checkOpen("rdma_get_cm_event");
        long deadline = System.nanoTime() + Math.min(timeout.toNanos(), Long.MAX_VALUE / 2);
        while (true) {
            long remaining = Math.max(0, deadline - System.nanoTime());
            int millis = (int) Math.min(Integer.MAX_VALUE, (remaining + 999_999) / 1_000_000);
            if (!runtime.verbs.readable(fd, millis)) {
                return Optional.empty();
            }
            Optional<CmEvent> event = next();
            if (event.isPresent() || deadline - System.nanoTime() <= 0) {
                return event;
            }
        }
    }

    @Override
    public Optional<CmEvent> pollEvent() {
        return getEvent(Duration.ZERO);
    }

    /** One {@code rdma_get_cm_event} on the non-blocking fd: EAGAIN (nothing left after all) is empty. */
    private Optional<CmEvent> next() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment slot = arena.allocate(ADDRESS);
            int errno = LibIbverbs.statusOf(runtime.cm.getCmEvent, channel, slot);
            if (errno == Errno.EAGAIN.number()) {
                return Optional.empty();
            }
            if (errno != 0) {
                throw new VerbsException(Errno.of(errno), "rdma_get_cm_event failed (errno " + errno + ")");
            }
            return Optional.ofNullable(IbvCmEvent.read(this,
                    slot.get(ADDRESS, 0).reinterpret(RdmacmLayouts.RDMA_CM_EVENT.byteSize())));
        }
    }

    /** {@code rdma_destroy_event_channel}; EBUSY while ids are on the channel (the API's rule; librdmacm leaves it undefined). */
    @Override
    public void close() {
        closeOnce("rdma_destroy_event_channel", "CM ids",
                () -> LibIbverbs.call(runtime.cm.destroyEventChannel, channel));
    }

    @Override
    public String toString() {
        return "IbvEventChannel[fd " + fd + "]";
    }
}
