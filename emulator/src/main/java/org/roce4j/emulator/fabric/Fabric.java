package org.roce4j.emulator.fabric;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.function.ToIntBiFunction;
import org.roce4j.wire.MacAddress;

/**
 * The in-process Ethernet fabric: moves real encoded frames between the ports of emulated RNIC
 * nodes, keeps time, and drives {@link Agent}s with a duty cycle.
 *
 * <h2>Deterministic mode</h2>
 * {@link #deterministic()}: virtual time, no threads; the caller drives progress with
 * {@link #step()}, {@link #runUntilIdle()} or {@link #runFor(Duration)}. A transmitted frame is
 * copied and delivered at transmit time plus {@link #linkDelay(Duration) the link delay} to the
 * port whose MAC is the frame's destination (bytes 0..5). Frames are delivered strictly by
 * (delivery time, transmit order), agents run in registration order, and time moves only when
 * nothing is runnable: the same run gives the same frames in the same order, byte for byte.
 *
 * <h2>Threaded mode</h2>
 * {@link #threaded()}: one daemon event-loop thread runs the same loop against the system clock
 * and, when idle, spins briefly and parks ({@link IdleStrategy}), until the next frame or agent
 * deadline or until woken by a transmit or {@link #wakeUp()}. {@link #step()},
 * {@link #runUntilIdle()} and {@link #runFor} only wake the loop and return at once.
 *
 * <h2>Threads and reentrancy</h2>
 * One fabric-wide reentrant lock ({@link FabricLock}: it spins a little before it blocks) is held
 * while agents and receivers run; application threads take it with {@link #locked(Runnable)} to
 * touch RNIC state safely. Agents and receivers may transmit. A call to {@code step}/{@code runUntilIdle}/{@code runFor} from inside an agent or
 * receiver does nothing (returns false/0): the loop already running will do the work, and
 * recursing into delivery would break the delivery order.
 * A deterministic fabric is meant to be driven by one thread: the first that runs it; when
 * another thread runs it too (an application's second poller), a warning naming that thread is
 * logged once ({@link DrivingThread}).
 *
 * <h2>Nothing is lost, nothing throws out</h2>
 * Bad frames are dropped and counted ({@link #counters()}); exceptions from agents and receivers
 * are counted and reported to {@link #onCallbackFailure}, which logs by default.
 */
public final class Fabric implements AutoCloseable {

    /**
     * The longest frame carried: a 9216-byte jumbo MTU, the usual switch maximum, plus a 14-byte
     * Ethernet header and a 4-byte 802.1Q tag. A 4096-byte RoCE MTU payload with all headers fits.
     */
    public static final int MAX_FRAME_LENGTH = 9216 + 14 + 4;

    /** Long enough for RoCE's retry timers (a few seconds at most), short enough to end a loop. */
    static final Duration DEFAULT_MAX_VIRTUAL_TIME_PER_RUN = Duration.ofSeconds(60);
    static final int DEFAULT_MAX_STEPS_PER_RUN = 10_000_000;
    static final Duration DEFAULT_LINK_DELAY = Duration.ofNanos(1_000);

    private final Clock clock;
    /** The clock as virtual time, or null in threaded mode. */
    private final VirtualClock virtualClock;
    private final ReentrantLock lock = new FabricLock();
    private final FrameSwitch frameSwitch;
    private final AgentRoster agents = new AgentRoster();
    private final CallbackFailures failures = new CallbackFailures();
    /** The event loop of threaded mode, or null in deterministic mode. */
    private final EventLoop eventLoop;
    /** The installed fault plan's filter, or null. */
    private FaultInjector faults;
    /** Deterministic mode: who runs the fabric, to warn when a second thread does. Under the lock. */
    private final DrivingThread drivingThread = new DrivingThread();

    private long linkDelayNanos = DEFAULT_LINK_DELAY.toNanos();
    private int maxStepsPerRun = DEFAULT_MAX_STEPS_PER_RUN;
    private long maxVirtualNanosPerRun = DEFAULT_MAX_VIRTUAL_TIME_PER_RUN.toNanos();
    /** True while agents or receivers run: stepping from inside them must not recurse. */
    private boolean dispatching;
    /**
     * The time of the threaded duty cycle running now ({@link #runDutyCycle}), {@link #NO_CYCLE} outside one:
     * the time its frames leave at. Under the lock.
     */
    private long cycleNanos = NO_CYCLE;
    private static final long NO_CYCLE = Long.MIN_VALUE;
    /** When the event loop looks next at the latest, as its last cycle found; under the lock. */
    private long loopWakesAtNanos = Long.MIN_VALUE;
    private volatile boolean closed;

    /** The virtual clock of a deterministic fabric, or null and how the threaded one's loop idles. */
    private Fabric(VirtualClock virtualClock, IdleStrategy idleStrategy) {
        this.virtualClock = virtualClock;
        if (virtualClock != null) {
            clock = virtualClock;
            eventLoop = null;
        } else {
            clock = SystemClock.INSTANCE;
            eventLoop = new EventLoop(this, idleStrategy);
        }
        frameSwitch = new FrameSwitch(clock.epochOffsetNanos());
    }

    /** {@return a fabric on virtual time starting at 0, driven by its caller, with no threads} */
    public static Fabric deterministic() {
        return new Fabric(new VirtualClock(), null);
    }

    /**
     * {@return a fabric on the system clock, driven by its own daemon event-loop thread, which spins
     * a little before it parks ({@link IdleStrategy#SPIN_THEN_PARK})}
     */
    public static Fabric threaded() {
        return threaded(IdleStrategy.SPIN_THEN_PARK);
    }

    /** {@return a fabric on the system clock, driven by its own daemon event-loop thread that idles as told} */
    public static Fabric threaded(IdleStrategy idleStrategy) {
        Fabric fabric = new Fabric(null, Objects.requireNonNull(idleStrategy, "idleStrategy"));
        fabric.eventLoop.start();
        return fabric;
    }

    /**
     * Attaches a node to the fabric.
     *
     * @return the port through which the node transmits
     * @throws IllegalArgumentException if a port with that MAC is already attached
     */
    public FabricPort attach(MacAddress mac, FrameReceiver receiver) {
        Objects.requireNonNull(mac, "mac");
        Objects.requireNonNull(receiver, "receiver");
        return locked(() -> frameSwitch.attach(this, mac, receiver));
    }

    /**
     * Adds an agent, run after those already added.
     *
     * @throws IllegalArgumentException if it was already added
     */
    public void addAgent(Agent agent) {
        locked(() -> agents.add(agent));
        wakeUp();
    }

    /** Removes an agent; nothing happens if it was not added. Allowed from inside its doWork. */
    public void removeAgent(Agent agent) {
        locked(() -> agents.remove(agent));
    }

    /** {@return the fabric's time: a {@link VirtualClock} in deterministic mode} */
    public Clock clock() {
        return clock;
    }

    /** {@return whether this fabric runs on virtual time, driven by its caller} */
    public boolean isDeterministic() {
        return virtualClock != null;
    }

    /**
     * Sets the one-way latency of every frame transmitted from now on (1 µs by default).
     *
     * @return this fabric
     * @throws IllegalArgumentException if negative
     */
    public Fabric linkDelay(Duration delay) {
        long nanos = delay.toNanos();
        if (nanos < 0) {
            throw new IllegalArgumentException("link delay must not be negative: " + delay);
        }
        locked(() -> linkDelayNanos = nanos);
        return this;
    }

    /**
     * Sets how much one {@link #runUntilIdle()} may do before it gives up with
     * {@link RunLimitExceededException}: at most {@code maxSteps} steps (10 million by default)
     * and at most {@code maxVirtualTime} of virtual time (60 s by default). The same step limit
     * applies to {@link #runFor}.
     *
     * @return this fabric
     */
    public Fabric runUntilIdleLimits(int maxSteps, Duration maxVirtualTime) {
        if (maxSteps < 1 || maxVirtualTime.isNegative()) {
            throw new IllegalArgumentException("limits must be positive: " + maxSteps + " steps, " + maxVirtualTime);
        }
        long nanos = maxVirtualTime.toNanos();
        locked(() -> {
            maxStepsPerRun = maxSteps;
            maxVirtualNanosPerRun = nanos;
        });
        return this;
    }

    /**
     * Sets what happens to an exception thrown by an agent or receiver, after it is counted:
     * by default it is logged. The handler gets a description of the callback and the exception;
     * if it throws, in deterministic mode the exception reaches the caller of {@link #step()}.
     *
     * @return this fabric
     */
    public Fabric onCallbackFailure(BiConsumer<String, Throwable> handler) {
        failures.handler(handler);
        return this;
    }

    /**
     * Captures what the wire carries from now on (Ethernet link type), pcapng when the file's name
     * ends in {@code .pcapng}, classic pcap otherwise: each frame as it reaches its port, at that
     * time, with the bytes the fault plan left (corrupted, twice when duplicated, late when held
     * back); a frame the plan dropped, or sent to a MAC no port has, as it was sent. In pcapng each
     * frame the plan touched carries comments saying what was done ("dropped by rule 2", numbered as
     * {@link Faults#describe()} numbers them). Times are virtual nanoseconds since the epoch in
     * deterministic mode, so the file is the same on every run. The file is flushed and closed by
     * {@link #close()}.
     *
     * @throws IllegalStateException if the fabric already has a tap, or is closed
     * @throws IOException if the file cannot be created
     */
    public void tap(Path pcapFile) throws IOException {
        Objects.requireNonNull(pcapFile, "pcapFile");
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("fabric is closed");
            }
            frameSwitch.tap(pcapFile);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Deterministic mode: makes one unit of progress. First the agents run at the current time;
     * if none did work, the earliest frame due by now is delivered; if none is due, virtual time
     * moves to the next frame delivery or agent deadline, and that frame is delivered or the
     * agents run.
     *
     * @return false if nothing at all is pending (and always in threaded mode, after waking the
     *     event loop, and from inside an agent or receiver)
     */
    public boolean step() {
        return runSteps(1, Long.MAX_VALUE, false) > 0;
    }

    /**
     * Deterministic mode: one step, as {@link #step()}, unless the next thing pending is due after
     * {@code endNanos} of virtual time: what a caller waiting with a deadline (a CM event channel) takes.
     *
     * @return false if nothing is pending up to {@code endNanos} (and as {@link #step()} otherwise)
     */
    public boolean stepUntil(long endNanos) {
        return runSteps(1, endNanos, false) > 0;
    }

    /**
     * Deterministic mode: steps until nothing is pending.
     *
     * @return the number of steps taken (0 in threaded mode, after waking the event loop, and from
     *     inside an agent or receiver)
     * @throws RunLimitExceededException if the limits of {@link #runUntilIdleLimits} are reached
     *     first: a livelocked agent, or one retrying forever, does not hang the caller
     */
    public int runUntilIdle() {
        return runSteps(Integer.MAX_VALUE, Long.MAX_VALUE, true);
    }

    /**
     * Deterministic mode: does everything due within {@code duration} of virtual time from now,
     * then sets the clock to the end of it. Unlike {@link #runUntilIdle()} this ends even when an
     * agent keeps rearming a timer, which is what a test of a timeout wants.
     *
     * @return the number of steps taken (0 in threaded mode and from inside an agent or receiver)
     * @throws RunLimitExceededException if the step limit of {@link #runUntilIdleLimits} is reached
     */
    public int runFor(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative: " + duration);
        }
        if (virtualClock == null) {
            wakeUp();
            return 0;
        }
        long end = Math.addExact(virtualClock.nanoTime(), duration.toNanos());
        lock.lock();
        try {
            int steps = runSteps(Integer.MAX_VALUE, end, true);
            if (!dispatching && !closed) {
                virtualClock.advanceTo(Math.max(end, virtualClock.nanoTime()));
            }
            return steps;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code action} holding the fabric lock, which the event loop holds while agents and
     * receivers run. Reentrant; callbacks already hold it. In threaded mode, call
     * {@link #wakeUp()} afterwards if the action gave an agent work.
     */
    public void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    /**
     * As {@link #locked(Runnable)} for {@code action.accept(first, second)}: with a non-capturing
     * action (a static method reference) nothing is allocated, which the post path needs.
     */
    public <A, B> void locked(BiConsumer<A, B> action, A first, B second) {
        lock.lock();
        try {
            action.accept(first, second);
        } finally {
            lock.unlock();
        }
    }

    /** As {@link #locked(BiConsumer, Object, Object)}, returning what {@code action} returns. */
    public <A, B> int lockedAsInt(ToIntBiFunction<A, B> action, A first, B second) {
        lock.lock();
        try {
            return action.applyAsInt(first, second);
        } finally {
            lock.unlock();
        }
    }

    /** As {@link #locked(Runnable)}, returning what {@code action} returns. */
    public <T> T locked(Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Threaded mode: makes the event loop run its agents soon, e.g. after an application thread
     * queued work for one. Cheap when the loop is busy. Does nothing in deterministic mode.
     */
    public void wakeUp() {
        if (eventLoop != null) {
            eventLoop.wakeUp();
        }
    }

    /** {@return a snapshot of the frame and failure counters} */
    public FabricCounters counters() {
        return locked(() -> frameSwitch.counters(failures.count()));
    }

    /**
     * Stops the event loop (waiting for it, unless called from it), drops the frames still
     * queued (counted as dropped-closed) and flushes and closes the pcap tap. Later transmits are
     * dropped and counted. Closing twice does nothing.
     *
     * @throws UncheckedIOException if the tap cannot be flushed
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (eventLoop != null) {
            eventLoop.stop();
        }
        lock.lock();
        try {
            frameSwitch.close();
        } catch (IOException e) {
            throw new UncheckedIOException("could not flush the pcap tap", e);
        } finally {
            lock.unlock();
        }
    }

    // ---- package-private: the ports and the event loop -----------------------------------

    /** What {@link FabricPort#transmitHandingOver} comes to; {@code payload} null when the frame holds its own. */
    byte[] transmitHandingOver(byte[] frame, int length, PayloadReference payload) {
        byte[] next;
        lock.lock();
        try {
            next = frameSwitch.routeHandingOver(frame, length, departureNanos(), linkDelayNanos, payload);
        } finally {
            lock.unlock();
        }
        if (eventLoop != null) {
            eventLoop.wakeUpFromOutside();
        }
        return next;
    }

    /**
     * When a frame transmitted now leaves, under the lock. Inside a threaded duty cycle: the cycle's time, at
     * which its agents already arm their timers — the cycle is one instant of the RNICs' work, as a step of
     * the deterministic fabric is, and a clock read per frame cost the event loop 5% of its time
     * (bench/RESULTS.md, "the cycle's time for its frames"). A frame leaves at most one cycle's length earlier
     * than it would by the clock (the default 1 µs of link delay still keeps it out of the cycle that sent it). With a tap
     * or a filter, which see each frame's own time, the clock is read.
     */
    private long departureNanos() {
        return cycleNanos != NO_CYCLE && !frameSwitch.needsIcrc() ? cycleNanos : clock.nanoTime();
    }

    /** {@link FabricPort#needsIcrc()}: the caller holds the lock. */
    boolean needsIcrc() {
        return frameSwitch.needsIcrc();
    }

    /**
     * What every {@link FabricPort#transmit} and {@link FabricPort#transmitUnchanged} comes to.
     *
     * @param unchanged whether the sender vouches the frame is as it built it
     */
    void transmit(byte[] frame, int offset, int length, boolean unchanged) {
        lock.lock();
        try {
            frameSwitch.route(frame, offset, length, departureNanos(), linkDelayNanos, unchanged);
        } finally {
            lock.unlock();
        }
        if (eventLoop != null) {
            eventLoop.wakeUpFromOutside();
        }
    }

    /**
     * Plugs in a fault-injection policy of your own, in place of the current one (and of any
     * {@link #faults(Faults) plan}); {@link FrameFilter#PASS_ALL} removes it.
     */
    public void filter(FrameFilter filter) {
        Objects.requireNonNull(filter, "filter");
        locked(() -> {
            frameSwitch.filter(filter);
            faults = null;
        });
    }

    /**
     * Installs a seeded fault-injection plan for every frame routed from now on, in place of the
     * current filter; its random choices and its "n-th frame" counts start afresh, so installing
     * the same plan on the same traffic replays it exactly. Counters: {@link #faultCounters()}.
     */
    public void faults(Faults plan) {
        FaultInjector injector = new FaultInjector(Objects.requireNonNull(plan, "plan"));
        locked(() -> {
            frameSwitch.filter(injector);
            faults = injector;
        });
    }

    /** {@return the installed fault plan, or null if none (also after {@link #filter} replaced it)} */
    public Faults faults() {
        return locked(() -> faults == null ? null : faults.plan());
    }

    /** {@return what the installed fault plan did, or {@link FaultCounters#NONE} if none is installed} */
    public FaultCounters faultCounters() {
        return locked(() -> faults == null ? FaultCounters.NONE : faults.counters());
    }

    FramePool framePool() {
        return frameSwitch.pool();
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * One pass of the threaded event loop at {@code nowNanos}: agents, then the frames due, at
     * most {@code maxFrames}. The caller holds the lock.
     *
     * @return the time of the next frame or agent deadline if nothing was done, else nowNanos
     */
    long runDutyCycle(long nowNanos, int maxFrames) {
        dispatching = true;
        cycleNanos = nowNanos;
        try {
            boolean worked = agents.doWork(nowNanos, failures) > 0;
            for (int i = 0; i < maxFrames && frameSwitch.earliestDeliveryTime() <= nowNanos; i++) {
                frameSwitch.deliverEarliest(nowNanos, failures);
                worked = true;
            }
            if (worked) {
                return nowNanos;
            }
            return Math.min(frameSwitch.earliestDeliveryTime(), agents.earliestDeadlineAfter(nowNanos, failures));
        } finally {
            dispatching = false;
            cycleNanos = NO_CYCLE;
        }
    }

    /**
     * Threaded: one duty cycle on the calling thread, now — after an API call or a received datagram
     * gave an agent work — instead of waking the event loop and waiting for it to be scheduled (a
     * thread hand-off per packet, tens of µs to ms on 2 loaded cores; rxe too runs its requester
     * and responder tasks inline where it can). The loop is woken afterwards only when the cycle
     * left work due now or set a deadline before the one the loop will wake for anyway
     * ({@link #loopWakesAtNanos}): a wake-up it does not need is a context switch per packet. Inside
     * a dispatch it only wakes the loop; on a deterministic fabric it does nothing.
     */
    public void runNow() {
        if (virtualClock != null) {
            return;
        }
        boolean wake = true;
        lock.lock();
        try {
            if (!dispatching && !closed) {
                long now = clock.nanoTime();
                long next = runDutyCycle(now, EventLoop.FRAMES_PER_CYCLE);
                wake = next <= now || next < loopWakesAtNanos;
            }
        } catch (RuntimeException | Error e) {
            // As the loop: only a failure handler that rethrows gets here; the caller's call did its part.
        } finally {
            lock.unlock();
        }
        if (wake) {
            wakeUp();
        }
    }

    /**
     * The event loop's cycle, under the lock: it records when it will look again (it may look
     * sooner, never later), which {@link #runNow} compares its own cycle's deadline with.
     */
    long runLoopCycle(long nowNanos) {
        loopWakesAtNanos = nowNanos; // a cycle that throws is run again at once
        long next = runDutyCycle(nowNanos, EventLoop.FRAMES_PER_CYCLE);
        loopWakesAtNanos = next;
        return next;
    }

    /** {@return whether the calling thread holds the fabric lock (inside a callback or a locked action)} */
    public boolean isLockHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    ReentrantLock lock() {
        return lock;
    }

    /** {@return how often the event loop was woken since it started; 0 in deterministic mode} */
    long loopWakeUps() {
        return eventLoop == null ? 0 : eventLoop.wakeUps();
    }

    /** {@return the event-loop thread, or null in deterministic mode} */
    Thread eventLoopThread() {
        return eventLoop == null ? null : eventLoop.thread();
    }

    // ---- deterministic stepping ------------------------------------------------------------

    /**
     * Takes up to {@code maxSteps} steps, never moving virtual time past {@code endNanos}.
     * With {@code bounded}, enforces the per-run limits.
     */
    private int runSteps(int maxSteps, long endNanos, boolean bounded) {
        if (virtualClock == null) {
            wakeUp();
            return 0;
        }
        lock.lock();
        try {
            if (dispatching || closed) {
                return 0;
            }
            drivingThread.running(Thread.currentThread());
            long start = virtualClock.nanoTime();
            int steps = 0;
            dispatching = true;
            try {
                while (steps < maxSteps && stepOnce(endNanos)) {
                    steps++;
                    if (bounded) {
                        // runFor has its own end of time; only runUntilIdle needs the time limit.
                        checkLimits(steps, virtualClock.nanoTime() - start, endNanos == Long.MAX_VALUE);
                    }
                }
            } finally {
                dispatching = false;
            }
            return steps;
        } finally {
            lock.unlock();
        }
    }

    private void checkLimits(int steps, long elapsedNanos, boolean limitTime) {
        if (steps >= maxStepsPerRun) {
            throw new RunLimitExceededException(maxStepsPerRun + " steps", steps, elapsedNanos,
                    frameSwitch.counters(failures.count()), faults == null ? null : faults.plan());
        }
        if (limitTime && elapsedNanos > maxVirtualNanosPerRun) {
            throw new RunLimitExceededException(Duration.ofNanos(maxVirtualNanosPerRun) + " of virtual time",
                    steps, elapsedNanos, frameSwitch.counters(failures.count()), faults == null ? null : faults.plan());
        }
    }

    /** One step as {@link #step()} describes it; false if nothing is pending up to endNanos. */
    private boolean stepOnce(long endNanos) {
        long now = virtualClock.nanoTime();
        if (agents.doWork(now, failures) > 0) {
            return true;
        }
        long nextFrame = frameSwitch.earliestDeliveryTime();
        if (nextFrame <= now) {
            frameSwitch.deliverEarliest(now, failures);
            return true;
        }
        long next = Math.min(nextFrame, agents.earliestDeadlineAfter(now, failures));
        if (next == Long.MAX_VALUE || next > endNanos) {
            return false;
        }
        // Idle until then: time moves only now, when nothing at the current time is runnable.
        virtualClock.advanceTo(next);
        if (nextFrame == next) {
            frameSwitch.deliverEarliest(next, failures);
        } else {
            agents.doWork(next, failures);
        }
        return true;
    }
}
