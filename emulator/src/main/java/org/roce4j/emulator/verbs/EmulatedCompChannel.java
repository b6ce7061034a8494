package org.roce4j.emulator.verbs;

import org.roce4j.emulator.node.Rnic;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Optional;

import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;

/**
 * A completion channel: the armed CQs that completed, in order. An event counts as unacknowledged
 * from the moment {@link #getCqEvent} hands it out until {@link #ackCqEvents}; a CQ cannot be
 * destroyed before its events are acknowledged (EBUSY). Events of a CQ that is destroyed before
 * anyone read them are dropped with it.
 */
final class EmulatedCompChannel extends Resource implements CompChannel {
    final EmulatedContext context;
    private final ArrayDeque<EmulatedCq> events = new ArrayDeque<>();
    private final Signal signal = new Signal();
    int cqs;

    EmulatedCompChannel(Rnic rnic, EmulatedContext context) {
        super(rnic);
        this.context = context;
    }

    @Override
    String kind() {
        return "completion channel";
    }

    void deliver(EmulatedCq cq) {
        events.addLast(cq);
        signal.signal();
    }

    void forget(EmulatedCq cq) {
        events.removeIf(e -> e == cq);
        cqs--;
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public Optional<Cq> getCqEvent(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        rnic.drive();
        if (rnic.isDeterministic()) {
            // Virtual time: once the fabric is idle nothing more can happen without the caller.
            return rnic.call(this::takeEvent);
        }
        long deadline = rnic.clock.nanoTime() + timeout.toNanos();
        while (true) {
            long seen = signal.sequence();
            Optional<Cq> event = rnic.call(this::takeEvent);
            if (event.isPresent() || rnic.clock.nanoTime() >= deadline) {
                return event;
            }
            signal.awaitChange(seen, rnic.clock, deadline);
        }
    }

    private Optional<Cq> takeEvent() {
        checkOpen("ibv_get_cq_event");
        EmulatedCq cq = events.pollFirst();
        if (cq == null) {
            return Optional.empty();
        }
        cq.unackedEvents++;
        return Optional.of(cq);
    }

    @Override
    public void ackCqEvents(Cq cq, int n) {
        Objects.requireNonNull(cq, "cq");
        rnic.run(() -> {
            checkOpen("ibv_ack_cq_events");
            if (!(cq instanceof EmulatedCq emulated) || emulated.channel() != this) {
                throw invalid("ibv_ack_cq_events", "the CQ does not report to this channel");
            }
            if (n < 0 || n > emulated.unackedEvents) {
                throw invalid("ibv_ack_cq_events", n + " events acknowledged, " + emulated.unackedEvents + " outstanding");
            }
            emulated.unackedEvents -= n;
        });
    }

    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
            }
            checkNoChildren("ibv_destroy_comp_channel", cqs, "completion queues using it");
            closed = true;
            context.channels--;
        });
    }
}
