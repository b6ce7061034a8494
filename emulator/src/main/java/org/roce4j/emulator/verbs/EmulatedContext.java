package org.roce4j.emulator.verbs;

import org.roce4j.emulator.node.Rnic;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.GidEntry;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.PortAttr;
import org.roce4j.verbs.PortCounters;
import org.roce4j.verbs.spi.RegisteredMemory;

/** An open emulated device: owns PDs, CQs and completion channels, and receives async events. */
final class EmulatedContext extends Resource implements Context {
    private final EmulatedDevice device;
    private final ArrayDeque<AsyncEvent> asyncEvents = new ArrayDeque<>();
    private final Signal asyncSignal = new Signal();
    int pds;
    int cqs;
    int channels;
    /** The memory registered on this context: the only memory INLINE sends may copy from. */
    final RegisteredMemory registeredMemory = new RegisteredMemory();

    EmulatedContext(Rnic rnic, EmulatedDevice device) {
        super(rnic);
        this.device = device;
    }

    @Override
    String kind() {
        return "context";
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public DeviceAttr queryDevice() {
        rnic.run(() -> checkOpen("ibv_query_device"));
        return rnic.deviceAttr;
    }

    @Override
    public java.util.Set<org.roce4j.verbs.DeviceCapFlagEx> queryDeviceCapFlagsEx() {
        rnic.run(() -> checkOpen("ibv_query_device_ex"));
        return DeviceCapabilitiesEx.of(rnic.model);
    }

    @Override
    public org.roce4j.verbs.OdpCaps queryOdpCaps() {
        rnic.run(() -> checkOpen("ibv_query_device_ex"));
        return OnDemandPaging.caps(rnic.model);
    }

    @Override
    public PortAttr queryPort(int portNum) {
        rnic.run(() -> {
            checkOpen("ibv_query_port");
            checkPort("ibv_query_port", portNum);
        });
        return rnic.portAttr;
    }

    /**
     * The port's counters, named as rxe's {@code hw_counters} (see {@link RnicCounter}): a snapshot,
     * it does not drive a deterministic fabric (poll first to let pending work happen).
     */
    @Override
    public PortCounters queryPortCounters(int portNum) {
        return rnic.call(() -> {
            checkOpen("query port counters");
            checkPort("query port counters", portNum);
            return rnic.portCounters();
        });
    }

    static void checkPort(String verb, int portNum) {
        if (portNum != DeviceLimits.PORT) {
            throw invalid(verb, "port " + portNum + " does not exist (the device has port 1 only)");
        }
    }

    @Override
    public Gid queryGid(int portNum, int index) {
        return rnic.call(() -> {
            checkOpen("ibv_query_gid");
            checkPort("ibv_query_gid", portNum);
            return rnic.gids.query(index);
        });
    }

    @Override
    public GidEntry queryGidEx(int portNum, int index) {
        return rnic.call(() -> {
            checkOpen("ibv_query_gid_ex");
            checkPort("ibv_query_gid_ex", portNum);
            return rnic.gids.entry(portNum, index);
        });
    }

    @Override
    public List<GidEntry> queryGidTable() {
        return rnic.call(() -> {
            checkOpen("ibv_query_gid_table");
            return rnic.gids.entries(DeviceLimits.PORT);
        });
    }

    @Override
    public int numCompVectors() {
        return DeviceCapabilities.COMP_VECTORS;
    }

    @Override
    public Pd allocPd() {
        return rnic.call(() -> {
            checkOpen("ibv_alloc_pd");
            if (pds >= rnic.model.limits().maxPd()) {
                throw new org.roce4j.verbs.VerbsException(org.roce4j.verbs.Errno.ENOMEM, "ibv_alloc_pd: too many PDs");
            }
            pds++;
            return new EmulatedPd(rnic, this);
        });
    }

    @Override
    public CompChannel createCompChannel() {
        return rnic.call(() -> {
            checkOpen("ibv_create_comp_channel");
            channels++;
            return new EmulatedCompChannel(rnic, this);
        });
    }

    @Override
    public Cq createCq(int cqe, CompChannel channel, int compVector) {
        return createCq(cqe, channel, compVector, java.util.Set.of());
    }

    @Override
    public org.roce4j.verbs.CqEx createCqEx(org.roce4j.verbs.CqInitAttrEx attr) {
        java.util.Objects.requireNonNull(attr, "attr");
        ExtendedCqSupport.check(rnic.model, attr.wcFlags());
        return createCq(attr.cqe(), attr.channel(), attr.compVector(), attr.wcFlags());
    }

    private EmulatedCq createCq(int cqe, CompChannel channel, int compVector,
                                java.util.Set<org.roce4j.verbs.CreateCqWcFlag> wcFlags) {
        return rnic.call(() -> {
            checkOpen("ibv_create_cq");
            int maxCqe = rnic.model.limits().maxCqe();
            if (cqe < 1 || cqe > maxCqe) {
                throw invalid("ibv_create_cq", "cqe " + cqe + " is outside 1.." + maxCqe);
            }
            if (compVector < 0 || compVector >= DeviceCapabilities.COMP_VECTORS) {
                // uverbs_cmd.c create_cq: comp_vector >= num_comp_vectors is EINVAL (unsigned: negative too)
                throw invalid("ibv_create_cq", "completion vector " + compVector + " is outside 0.."
                        + (DeviceCapabilities.COMP_VECTORS - 1) + " (num_comp_vectors " + DeviceCapabilities.COMP_VECTORS + ")");
            }
            EmulatedCompChannel ch = null;
            if (channel != null) {
                if (!(channel instanceof EmulatedCompChannel c) || c.context != this) {
                    throw invalid("ibv_create_cq", "the completion channel belongs to another context");
                }
                c.checkOpen("ibv_create_cq");
                ch = c;
                ch.cqs++;
            }
            if (cqs >= rnic.model.limits().maxCq()) {
                throw new org.roce4j.verbs.VerbsException(org.roce4j.verbs.Errno.ENOMEM, "ibv_create_cq: too many CQs");
            }
            cqs++;
            return new EmulatedCq(rnic, this, QueueDepths.granted(rnic.model, cqe), ch, wcFlags);
        });
    }

    /** Queues an affiliated or unaffiliated asynchronous event (called under the fabric lock). */
    void raise(AsyncEvent event) {
        if (!closed) {
            asyncEvents.addLast(event);
            asyncSignal.signal();
        }
    }

    @Override
    public Optional<AsyncEvent> pollAsyncEvent() {
        rnic.drive();
        return rnic.call(() -> {
            checkOpen("ibv_get_async_event");
            return Optional.ofNullable(asyncEvents.pollFirst());
        });
    }

    @Override
    public Optional<AsyncEvent> getAsyncEvent(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (rnic.isDeterministic()) {
            // Virtual time: once the fabric is idle nothing more can happen without the caller.
            return pollAsyncEvent();
        }
        long deadline = rnic.clock.nanoTime() + timeout.toNanos();
        while (true) {
            long seen = asyncSignal.sequence();
            Optional<AsyncEvent> event = rnic.call(() -> {
                checkOpen("ibv_get_async_event");
                return Optional.ofNullable(asyncEvents.pollFirst());
            });
            if (event.isPresent() || rnic.clock.nanoTime() >= deadline) {
                return event;
            }
            asyncSignal.awaitChange(seen, rnic.clock, deadline);
        }
    }

    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
            }
            checkNoChildren("ibv_close_device", pds, "protection domains");
            checkNoChildren("ibv_close_device", cqs, "completion queues");
            checkNoChildren("ibv_close_device", channels, "completion channels");
            closed = true;
        });
    }

    @Override
    public String toString() {
        return "Context[" + rnic.name + "]";
    }
}
