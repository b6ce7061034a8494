package org.roce4j.emulator.cm;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmId;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * An event channel ({@code struct rdma_event_channel}): the ids made on it and the events they
 * raised, in order. On a deterministic fabric a blocking {@link #getEvent} drives the fabric step
 * by step in virtual time until an event is here or the timeout has passed (so a CM timeout of a
 * minute costs no wall time, and the peer's CM acts between steps); on a threaded one it waits.
 */
final class EmulatedEventChannel implements EventChannel {
    final RdmaCmHost host;
    private final ArrayDeque<EmulatedCmEvent> queue = new ArrayDeque<>();
    private final Set<EmulatedCmId> ids = Collections.newSetFromMap(new IdentityHashMap<>());
    private boolean closed;

    EmulatedEventChannel(RdmaCmHost host) {
        this.host = host;
    }

    @Override
    public CmId createId(PortSpace space, Object context) {
        java.util.Objects.requireNonNull(space, "space");
        EmulatedCmId id = new EmulatedCmId(host, this, space, context);
        adopt(id);
        return id;
    }

    synchronized void adopt(EmulatedCmId id) {
        if (closed) {
            throw new VerbsException(Errno.EINVAL, "rdma_create_id: the event channel is closed");
        }
        ids.add(id);
    }

    synchronized void release(EmulatedCmId id) {
        ids.remove(id);
    }

    /** Called by the CM's side, under a fabric lock: the channel's monitor is the innermost lock. */
    synchronized void post(EmulatedCmEvent event) {
        queue.addLast(event);
        notifyAll();
    }

    synchronized void dropEventsOf(EmulatedCmId id) {
        queue.removeIf(e -> e.emulatedId() == id);
    }

    /** Drops the events of one multicast membership not read yet (ucma.c ucma_cleanup_mc_events). */
    synchronized void dropEventsOf(CmMulticast.Membership membership) {
        queue.removeIf(e -> e.membership() == membership);
    }

    /** Takes out the CONNECT_REQUESTs still queued for {@code listener}; {@return their new ids} */
    synchronized java.util.List<EmulatedCmId> dropRequestsFor(EmulatedCmId listener) {
        java.util.List<EmulatedCmId> children = new java.util.ArrayList<>();
        for (Iterator<EmulatedCmEvent> it = queue.iterator(); it.hasNext(); ) {
            EmulatedCmEvent e = it.next();
            if (e.type() == org.roce4j.cm.CmEventType.CONNECT_REQUEST && e.emulatedId().listener == listener) {
                children.add(e.emulatedId());
                it.remove();
            }
        }
        return children;
    }

    void moveEventsOf(EmulatedCmId id, EmulatedEventChannel to) {
        java.util.List<EmulatedCmEvent> moved = new java.util.ArrayList<>();
        synchronized (this) {
            for (Iterator<EmulatedCmEvent> it = queue.iterator(); it.hasNext(); ) {
                EmulatedCmEvent e = it.next();
                if (e.emulatedId() == id) {
                    moved.add(e);
                    it.remove();
                }
            }
        }
        moved.forEach(to::post);
    }

    private EmulatedCmEvent take() {
        EmulatedCmEvent event;
        synchronized (this) {
            event = queue.pollFirst();
        }
        if (event != null) {
            event = event.emulatedId().eventTaken(event);
        }
        return event;
    }

    @Override
    public Optional<CmEvent> getEvent(Duration timeout) {
        long timeoutNanos = Math.max(0, timeout.toNanos());
        Fabric clockSource = host.fabrics().isEmpty() ? null : host.fabrics().getFirst();
        if (clockSource == null) {
            return Optional.ofNullable(take());
        }
        if (clockSource.isDeterministic()) {
            long end = saturatedAdd(clockSource.clock().nanoTime(), timeoutNanos);
            while (true) {
                EmulatedCmEvent event = take();
                if (event != null) {
                    return Optional.of(event);
                }
                if (!stepAny(end)) {
                    long now = clockSource.clock().nanoTime();
                    if (end > now && end != Long.MAX_VALUE) {
                        clockSource.runFor(Duration.ofNanos(end - now));
                    }
                    return Optional.ofNullable(take());
                }
            }
        }
        long deadline = saturatedAdd(clockSource.clock().nanoTime(), timeoutNanos);
        synchronized (this) {
            while (queue.isEmpty()) {
                long left = deadline - clockSource.clock().nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    wait(Math.max(1, left / 1_000_000), 0);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return Optional.ofNullable(take());
    }

    private boolean stepAny(long end) {
        for (Fabric fabric : host.fabrics()) {
            if (fabric.isDeterministic() && fabric.stepUntil(end)) {
                return true;
            }
        }
        return false;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < a ? Long.MAX_VALUE : sum;
    }

    @Override
    public Optional<CmEvent> pollEvent() {
        for (Fabric fabric : host.fabrics()) {
            if (fabric.isDeterministic()) {
                fabric.runFor(Duration.ZERO); // what is due now, without moving time
            }
        }
        return Optional.ofNullable(take());
    }

    @Override
    public synchronized void close() {
        if (!ids.isEmpty()) {
            throw new VerbsException(Errno.EBUSY, "rdma_destroy_event_channel: " + ids.size() + " id(s) are still on the channel");
        }
        closed = true;
    }

    @Override
    public String toString() {
        return "EventChannel[" + queue.size() + " queued, " + ids.size() + " ids]";
    }
}
