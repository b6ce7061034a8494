package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the CM part of the backend shares: librdmacm and libibverbs as loaded, the device contexts
 * librdmacm opened for its ids (one {@link IbvContext} per {@code struct ibv_context *}, so PDs, CQs
 * and QPs made on one are counted on one object), and every open id by its {@code rdma_cm_id}
 * address — an event names its id by address, and ids move between channels.
 */
final class CmRuntime {
    final LibRdmacm cm;
    final LibIbverbs verbs;
    final Map<Long, IbvCmId> ids = new ConcurrentHashMap<>();
    /**
     * The multicast joins by the number given to librdmacm as the join's {@code void *context}, which
     * comes back in the MULTICAST_JOIN / MULTICAST_ERROR event's {@code param.ud.private_data}.
     */
    final Map<Long, IbvCmId.MulticastJoin> multicastJoins = new ConcurrentHashMap<>();
    final java.util.concurrent.atomic.AtomicLong nextMulticastKey = new java.util.concurrent.atomic.AtomicLong(1);
    private final Map<Long, IbvContext> contexts = new ConcurrentHashMap<>();

    private CmRuntime(LibRdmacm cm, LibIbverbs verbs) {
        this.cm = cm;
        this.verbs = verbs;
    }

    /** {@return the context object of an id's {@code verbs}, made once per native context} */
    IbvContext context(MemorySegment ibvContext) {
        return contexts.computeIfAbsent(ibvContext.address(), address -> {
            MemorySegment context = ibvContext.reinterpret(Layouts.IBV_CONTEXT.byteSize());
            MemorySegment device = context.get(ADDRESS, Layouts.offset(Layouts.IBV_CONTEXT, "device"));
            return new IbvContext(verbs, new IbvDevice(verbs, device), context, true);
        });
    }

    /**
     * What loading librdmacm gave.
     *
     * @param runtime the loaded CM, or null
     * @param whyNot  one line: why there is no CM here ("librdmacm.so.1 not found: …"), or why it will
     *                find no device; empty when it should work
     */
    record Loaded(CmRuntime runtime, String whyNot) {
    }

    /**
     * Loads {@code libraryName} beside the libibverbs {@code discovery} found. Never throws: a missing
     * library is an answer.
     */
    static Loaded load(String libraryName, Discovery discovery) {
        if (discovery.library() == null) {
            return new Loaded(null, libraryName + " needs libibverbs: " + discovery.diagnostic());
        }
        LibRdmacm cm;
        try {
            cm = new LibRdmacm(libraryName);
        } catch (IllegalArgumentException e) {
            return new Loaded(null, libraryName + " not found: " + e.getMessage()
                    + " (Debian/Ubuntu: apt-get install librdmacm1)");
        } catch (NoSuchElementException e) {
            return new Loaded(null, libraryName + " lacks a function: " + e.getMessage());
        } catch (IllegalCallerException e) {
            return new Loaded(null, "native access is disabled (" + e.getMessage()
                    + "): start the JVM with --enable-native-access=ALL-UNNAMED");
        }
        // librdmacm opens its devices through libibverbs (cma.c ucma_init → ibv_get_device_list):
        // with none, rdma_create_event_channel fails, and its errno is what createEventChannel throws.
        String whyNot = discovery.devices().isEmpty() ? libraryName + " loaded, but " + discovery.diagnostic() : "";
        return new Loaded(new CmRuntime(cm, discovery.library()), whyNot);
    }
}
