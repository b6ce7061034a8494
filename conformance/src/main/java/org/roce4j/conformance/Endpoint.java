package org.roce4j.conformance;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;

/**
 * One side of a test: a context, a PD, a CQ and native memory, closed in reverse order of creation.
 * Resources the test adds through {@link #track} are closed first.
 */
final class Endpoint implements AutoCloseable {
    /** The port every test uses. */
    static final int PORT = 1;
    /** GID index 1: the IPv4-mapped GID, what RoCEv2 over IPv4 uses (rxe and the emulator alike). */
    static final int GID_INDEX = 1;
    static final Set<AccessFlag> ALL_ACCESS = EnumSet.of(
            AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    final Context context;
    final Pd pd;
    final Cq cq;
    private final Arena arena = Arena.ofShared();
    private final Deque<AutoCloseable> tracked = new ArrayDeque<>();

    Endpoint(Device device) {
        this(device, 256);
    }

    Endpoint(Device device, int cqDepth) {
        context = device.open();
        pd = context.allocPd();
        cq = context.createCq(cqDepth);
    }

    static Endpoint first(Backend backend) {
        return new Endpoint(backend.firstDevice());
    }

    static Endpoint second(Backend backend) {
        return new Endpoint(backend.secondDevice());
    }

    Gid gid() {
        return context.queryGid(PORT, GID_INDEX);
    }

    /** Native memory of {@code size} bytes, 8-byte aligned, zeroed, freed when the endpoint closes. */
    MemorySegment allocate(long size) {
        return arena.allocate(size, 8);
    }

    /** A registered region over fresh memory with the given rights. */
    Mr register(long size, Set<AccessFlag> access) {
        return track(pd.regMr(allocate(size), access));
    }

    Mr register(long size) {
        return register(size, ALL_ACCESS);
    }

    /** Memory once registered and then deregistered ({@code ibv_dereg_mr}): the address and rkey it had. */
    record Deregistered(MemorySegment memory, long address, int rkey) {
    }

    /** {@return 64 bytes of canary-filled memory registered with every right, then deregistered} */
    Deregistered deregistered() {
        MemorySegment memory = allocate(64);
        Bytes.canary(memory);
        Mr gone = pd.regMr(memory, ALL_ACCESS);
        Deregistered region = new Deregistered(memory, gone.address(), gone.rkey());
        gone.close();
        return region;
    }

    <T extends AutoCloseable> T track(T resource) {
        tracked.push(resource);
        return resource;
    }

    /** Stops tracking a resource the test closes itself (e.g. to check the order of destruction). */
    <T extends AutoCloseable> T untrack(T resource) {
        tracked.remove(resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        Exception failure = null;
        while (!tracked.isEmpty()) {
            try {
                tracked.pop().close();
            } catch (Exception e) {
                failure = e;
            }
        }
        cq.close();
        pd.close();
        context.close();
        arena.close();
        if (failure != null) {
            throw failure;
        }
    }
}
