package org.roce4j.emulator.cm;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.roce4j.cm.CmEventType;
import org.roce4j.emulator.HostRoute;
import org.roce4j.emulator.node.Rnic;

/**
 * An address resolution over a link waiting for the host's neighbour entry of the next hop, as addr.c
 * does: {@code process_one_req} looks again until the entry is valid (ADDR_RESOLVED) or the caller's
 * timeout has passed (ADDR_ERROR −ETIMEDOUT, the id back to ADDR_BOUND). Linux looks again when a
 * neighbour becomes valid ({@code netevent_callback}); we cannot hear the kernel's netevents, so we
 * look every {@link #POLL_NANOS} on a CM timer — never blocking the RNIC's loop: the look-up itself
 * runs on the link's thread, and its answer comes back under the device's lock.
 *
 * <p>Each look is started by a timer, and {@code id.resolutionTimer} holds it: an answer for a timer
 * that is no longer the id's (the id destroyed, or resolving again) is dropped.
 */
final class NeighbourWait {
    /** How often the neighbour table is read again: the delay between a neighbour's answer and ADDR_RESOLVED, at most. */
    static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final EmulatedCmId id;
    private final Rnic device;
    private final HostRoute route;
    private final long deadlineNanos;

    private NeighbourWait(EmulatedCmId id, Rnic device, HostRoute route, long deadlineNanos) {
        this.id = id;
        this.device = device;
        this.route = route;
        this.deadlineNanos = deadlineNanos;
    }

    /** Starts waiting; the id is in ADDR_QUERY on {@code device}. */
    static void start(EmulatedCmId id, Rnic device, HostRoute route, Duration timeout) {
        device.run(() -> {
            NeighbourWait wait = new NeighbourWait(id, device, route, device.clock.nanoTime() + timeout.toNanos());
            wait.lookAfter(0);
        });
    }

    /** Under the device's lock. */
    private void lookAfter(long delayNanos) {
        CmTimers.Timer[] armed = new CmTimers.Timer[1];
        armed[0] = CommunicationManager.of(device).schedule(delayNanos, () -> look(armed[0]));
        id.resolutionTimer = armed[0];
    }

    private void look(CmTimers.Timer timer) {
        if (id.resolutionTimer != timer || id.state != RdmaCmState.ADDR_QUERY) {
            return;
        }
        device.link().neighbourValid(route).thenAccept(valid -> device.run(() -> answered(timer, valid)));
    }

    /** Under the device's lock, for the look {@code timer} started. */
    private void answered(CmTimers.Timer timer, boolean valid) {
        if (id.resolutionTimer != timer || id.state != RdmaCmState.ADDR_QUERY) {
            return;
        }
        id.resolutionTimer = null;
        if (valid) {
            id.state = RdmaCmState.ADDR_RESOLVED;
            id.post(CmEventType.ADDR_RESOLVED, 0, null);
            return;
        }
        long now = device.clock.nanoTime();
        if (now >= deadlineNanos) {
            // addr.c process_one_req: still no valid neighbour at the timeout is −ETIMEDOUT; cma.c addr_handler: ADDR_BOUND.
            id.state = RdmaCmState.ADDR_BOUND;
            id.post(CmEventType.ADDR_ERROR, CmTiming.ETIMEDOUT, null);
            return;
        }
        lookAfter(Math.min(POLL_NANOS, deadlineNanos - now));
    }
}
