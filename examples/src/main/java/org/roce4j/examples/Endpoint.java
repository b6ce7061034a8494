package org.roce4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;

/**
 * One side of an example: a PD and a CQ on a context, and the native memory it registers, all
 * closed in reverse order of creation. The context belongs to the caller.
 */
public final class Endpoint implements AutoCloseable {
    /** Port 1: what RoCE devices have. */
    public static final int PORT = 1;
    /** GID index 1: the IPv4-mapped RoCEv2 GID on Soft-RoCE and the emulator (give another with -Droce4j.examples.gidIndex). */
    public static final int GID_INDEX = Integer.getInteger("roce4j.examples.gidIndex", 1);

    private final Context context;
    private final Pd pd;
    private final Cq cq;
    private final Arena arena = Arena.ofShared();
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    /**
     * Allocates a PD and a CQ of {@code cqEntries} on {@code context}.
     *
     * @param context   the open device
     * @param cqEntries the CQ's size
     */
    public Endpoint(Context context, int cqEntries) {
        this.context = context;
        this.pd = context.allocPd();
        try {
            this.cq = context.createCq(cqEntries);
        } catch (RuntimeException e) {
            pd.close();
            throw e;
        }
    }

    /** {@return the context} */
    public Context context() {
        return context;
    }

    /** {@return the protection domain} */
    public Pd pd() {
        return pd;
    }

    /** {@return the CQ of both queues of this side's QPs} */
    public Cq cq() {
        return cq;
    }

    /** {@return the port's GID at {@link #GID_INDEX}: what a peer puts in its address vector} */
    public Gid gid() {
        return context.queryGid(PORT, GID_INDEX);
    }

    /**
     * {@return fresh zeroed native memory of {@code bytes}, 8-byte aligned, registered with {@code access}}
     *
     * @param bytes  the size
     * @param access the rights (LOCAL_WRITE is needed for any remote write right)
     */
    public Mr register(long bytes, Set<AccessFlag> access) {
        MemorySegment memory = arena.allocate(bytes, 8);
        return keep(pd.regMr(memory, access));
    }

    /**
     * {@return {@code resource}, to be closed with this endpoint, before what was kept earlier}
     *
     * @param resource a QP, AH or MR made on this endpoint's PD
     * @param <T>      its type
     */
    public <T extends AutoCloseable> T keep(T resource) {
        resources.push(resource);
        return resource;
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                failure = failure != null ? failure : e instanceof RuntimeException r ? r : new IllegalStateException(e);
            }
        }
        cq.close();
        pd.close();
        arena.close();
        if (failure != null) {
            throw failure;
        }
    }
}
