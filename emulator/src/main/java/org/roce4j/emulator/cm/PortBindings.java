package org.roce4j.emulator.cm;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.roce4j.cm.PortSpace;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * Which ids hold which port, per port space, on one host: cma.c's {@code rdma_bind_list} per
 * {@code ps} and port. Two ids may share a port only on different specific addresses
 * ({@code cma_check_port}: a wildcard conflicts with everything). Port 0 takes an ephemeral port
 * as {@code cma_alloc_any_port} does: a random start in {@code ip_local_port_range} (Linux's
 * default 32768–60999), then the next free one. A port with no id left is gone from the map.
 */
final class PortBindings {
    /** Linux's default {@code net.ipv4.ip_local_port_range}. */
    static final int EPHEMERAL_LOW = 32768;
    static final int EPHEMERAL_HIGH = 60999;

    private final Map<PortSpace, Map<Integer, List<EmulatedCmId>>> spaces = new EnumMap<>(PortSpace.class);
    private final RandomGenerator random;

    PortBindings(RandomGenerator random) {
        this.random = random;
    }

    /**
     * Binds {@code id} to {@code address} ({@code null}: wildcard) and {@code port} (0: ephemeral).
     * {@return the port bound}
     *
     * @throws VerbsException EADDRINUSE when the port is taken; EADDRNOTAVAIL when no ephemeral port is free
     */
    synchronized int bind(EmulatedCmId id, PortSpace space, InetAddress address, int port) {
        Map<Integer, List<EmulatedCmId>> ports = spaces.computeIfAbsent(space, s -> new HashMap<>());
        if (port == 0) {
            int range = EPHEMERAL_HIGH - EPHEMERAL_LOW + 1;
            int rover = EPHEMERAL_LOW + random.nextInt(range);
            for (int tried = 0; tried < range; tried++) {
                int candidate = EPHEMERAL_LOW + (rover - EPHEMERAL_LOW + tried) % range;
                if (!ports.containsKey(candidate)) {
                    ports.computeIfAbsent(candidate, p -> new ArrayList<>()).add(id);
                    return candidate;
                }
            }
            throw new VerbsException(Errno.EADDRNOTAVAIL, "rdma_bind_addr: no ephemeral port is free in " + space);
        }
        List<EmulatedCmId> holders = ports.computeIfAbsent(port, p -> new ArrayList<>());
        for (EmulatedCmId holder : holders) {
            InetAddress held = holder.boundAddress();
            if (address == null || held == null || held.equals(address)) {
                throw new VerbsException(Errno.EADDRINUSE, "rdma_bind_addr: " + space + " port " + port + " is bound by another id");
            }
        }
        holders.add(id);
        return port;
    }

    synchronized void release(EmulatedCmId id, PortSpace space, int port) {
        Map<Integer, List<EmulatedCmId>> ports = spaces.get(space);
        List<EmulatedCmId> holders = ports == null ? null : ports.get(port);
        if (holders != null && holders.remove(id) && holders.isEmpty()) {
            ports.remove(port);
        }
    }

    /** {@return the ids bound to {@code port} in {@code space} (a copy)} */
    synchronized List<EmulatedCmId> holders(PortSpace space, int port) {
        Map<Integer, List<EmulatedCmId>> ports = spaces.get(space);
        List<EmulatedCmId> holders = ports == null ? null : ports.get(port);
        return holders == null ? List.of() : List.copyOf(holders);
    }

    synchronized int boundPorts() {
        int n = 0;
        for (Map<Integer, List<EmulatedCmId>> ports : spaces.values()) {
            n += ports.size();
        }
        return n;
    }
}
