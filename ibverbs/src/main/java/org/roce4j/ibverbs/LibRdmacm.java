package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;


/**
 * The exported functions of librdmacm.so.1 (and fcntl(2) of libc), as downcall handles. librdmacm
 * reports failure as {@code -1} with errno (its {@code ERR(e)} macro) or as NULL with errno, so the
 * calls capture errno and go through {@link LibIbverbs}'s calling conventions ({@code pointer},
 * {@code status}): one reading of errno for both libraries. {@code rdma_get_local_addr} and {@code rdma_get_peer_addr} are static inline
 * in {@code rdma_cma.h} (they return {@code &id->route.addr.src_addr}): they are read from the id
 * through {@link RdmacmLayouts#RDMA_CM_ID}.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class LibRdmacm {
    /** The library's soname: the ABI {@link RdmacmLayouts} describe. */
    static final String DEFAULT_LIBRARY = "librdmacm.so.1";
    /** {@code F_GETFL}, {@code F_SETFL} and {@code O_NONBLOCK} of Linux's {@code <fcntl.h>}. */
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;

    private static final Linker LINKER = Linker.nativeLinker();

    final MethodHandle createEventChannel;
    final MethodHandle destroyEventChannel;
    final MethodHandle createId;
    final MethodHandle destroyId;
    final MethodHandle bindAddr;
    final MethodHandle resolveAddr;
    final MethodHandle resolveRoute;
    final MethodHandle listen;
    final MethodHandle connect;
    final MethodHandle accept;
    final MethodHandle reject;
    final MethodHandle disconnect;
    final MethodHandle getCmEvent;
    final MethodHandle ackCmEvent;
    final MethodHandle createQp;
    final MethodHandle destroyQp;
    final MethodHandle migrateId;
    final MethodHandle initQpAttr;
    final MethodHandle establish;
    final MethodHandle joinMulticastEx;
    final MethodHandle leaveMulticast;
    final MethodHandle getSrcPort;
    final MethodHandle getDstPort;
    final MethodHandle eventStr;
    private final MethodHandle fcntl;

    private final SymbolLookup library;

    /**
     * Loads the library. Throws IllegalArgumentException when it is not found (dlopen failed), or
     * NoSuchElementException naming a missing symbol.
     */
    LibRdmacm(String libraryName) {
        library = SymbolLookup.libraryLookup(libraryName, Arena.global());
        createEventChannel = errnoCall("rdma_create_event_channel", FunctionDescriptor.of(ADDRESS));
        destroyEventChannel = plain("rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS));
        createId = errnoCall("rdma_create_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
        destroyId = errnoCall("rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        bindAddr = errnoCall("rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        resolveAddr = errnoCall("rdma_resolve_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
        resolveRoute = errnoCall("rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        listen = errnoCall("rdma_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        connect = errnoCall("rdma_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        accept = errnoCall("rdma_accept", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        reject = errnoCall("rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE));
        disconnect = errnoCall("rdma_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getCmEvent = errnoCall("rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        ackCmEvent = errnoCall("rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createQp = errnoCall("rdma_create_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        destroyQp = plain("rdma_destroy_qp", FunctionDescriptor.ofVoid(ADDRESS));
        migrateId = errnoCall("rdma_migrate_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        initQpAttr = errnoCall("rdma_init_qp_attr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        establish = errnoCall("rdma_establish", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        joinMulticastEx = errnoCall("rdma_join_multicast_ex", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        leaveMulticast = errnoCall("rdma_leave_multicast", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        getSrcPort = plain("rdma_get_src_port", FunctionDescriptor.of(JAVA_SHORT, ADDRESS));
        getDstPort = plain("rdma_get_dst_port", FunctionDescriptor.of(JAVA_SHORT, ADDRESS));
        eventStr = plain("rdma_event_str", FunctionDescriptor.of(
                ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(64, JAVA_BYTE)), JAVA_INT));
        fcntl = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("fcntl"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
                Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
    }

    private MethodHandle errnoCall(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(library.findOrThrow(name), descriptor, Linker.Option.captureCallState("errno"));
    }

    private MethodHandle plain(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(library.findOrThrow(name), descriptor);
    }

    /** {@return {@code rdma_event_str(value)}: librdmacm's name of an event type} */
    String eventName(int value) {
        return ((MemorySegment) LibIbverbs.call(eventStr, value)).getString(0);
    }

    /**
     * Makes the channel's fd non-blocking, as librdmacm's man page says to for asynchronous use
     * ({@code rdma_get_cm_event(3)}): after poll(2) says the fd is readable, rdma_get_cm_event may
     * still consume an event it handles itself (an event for an id being destroyed, a REJECTED after
     * a CONNECT_ERROR, cma.c {@code goto retry}) and read again — a blocking fd would then wait with
     * no deadline; a non-blocking one answers EAGAIN (the kernel's ucma_get_event).
     */
    void makeNonBlocking(int fd) {
        int flags = LibIbverbs.valueOrErrno("fcntl(F_GETFL)", fcntl, fd, F_GETFL, 0);
        LibIbverbs.valueOrErrno("fcntl(F_SETFL)", fcntl, fd, F_SETFL, flags | O_NONBLOCK);
    }
}
