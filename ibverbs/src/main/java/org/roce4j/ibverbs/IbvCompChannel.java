package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * A completion channel: {@code struct ibv_comp_channel *}. {@code ibv_get_cq_event} blocks on the
 * channel's fd, so a wait with a timeout polls the fd first (poll(2)) and reads only when an event is there.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class IbvCompChannel extends Resource implements CompChannel {
    final IbvContext context;
    final MemorySegment channel;
    private final int fd;

    IbvCompChannel(IbvContext context, MemorySegment channel) {
        this.context = context;
        this.channel = channel.reinterpret(Layouts.IBV_COMP_CHANNEL.byteSize());
        this.fd = this.channel.get(JAVA_INT, Layouts.offset(Layouts.IBV_COMP_CHANNEL, "fd"));
    }

    @Override
    String kind() {
        return "completion channel";
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public Optional<Cq> getCqEvent(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        checkOpen("ibv_get_cq_event");
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(0, timeout.toMillis()));
        if (!context.lib.readable(fd, millis)) {
            return Optional.empty();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cqOut = arena.allocate(ADDRESS);
            MemorySegment contextOut = arena.allocate(ADDRESS);
            LibIbverbs.status("ibv_get_cq_event", context.lib.getCqEvent, channel, cqOut, contextOut);
            IbvCq cq = context.cqs.get(cqOut.get(ADDRESS, 0).address());
            if (cq == null) {
                throw new IllegalStateException("ibv_get_cq_event: an event for an unknown CQ");
            }
            cq.eventDelivered();
            return Optional.of(cq);
        }
    }

    @Override
    public void ackCqEvents(Cq cq, int events) {
        Objects.requireNonNull(cq, "cq");
        checkOpen("ibv_ack_cq_events");
        if (!(cq instanceof IbvCq ours) || ours.channel() != this) {
            throw new VerbsException(Errno.EINVAL, "ibv_ack_cq_events: the CQ does not report to this channel");
        }
        ours.acknowledge(events);
    }

    @Override
    public void close() {
        closeOnce("ibv_destroy_comp_channel", "completion queues using it", () -> {
            LibIbverbs.status("ibv_destroy_comp_channel", context.lib.destroyCompChannel, channel);
            context.removeChild();
        });
    }
}
