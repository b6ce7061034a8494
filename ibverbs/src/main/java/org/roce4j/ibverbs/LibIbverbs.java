package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * The exported functions of libibverbs.so.1 (and poll(2) of libc), as downcall handles. Control-path
 * calls capture errno, since functions returning a pointer report failure as NULL plus errno and
 * functions returning int give the errno itself (rdma-core's convention) or -1 plus errno. The five
 * static-inline data-path verbs are not exported: {@link Ops} calls them through the context's ops
 * table.
 */
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
final class LibIbverbs {
    /** The library's soname: the ABI the layouts describe. */
    static final String DEFAULT_LIBRARY = "libibverbs.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    /** Where a downcall with {@code captureCallState("errno")} leaves errno. */
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    static final long ERRNO = CALL_STATE.byteOffset(PathElement.groupElement("errno"));

    final MethodHandle getDeviceList;
    final MethodHandle getDeviceName;
    final MethodHandle getDeviceGuid;
    final MethodHandle openDevice;
    final MethodHandle closeDevice;
    final MethodHandle queryDevice;
    final MethodHandle queryPortCompat;
    final MethodHandle queryGid;
    final MethodHandle queryGidEx;
    final MethodHandle queryGidTable;
    final MethodHandle allocPd;
    final MethodHandle deallocPd;
    final MethodHandle regMr;
    final MethodHandle regMrIova;
    final MethodHandle deregMr;
    final MethodHandle reregMr;
    final MethodHandle createCompChannel;
    final MethodHandle destroyCompChannel;
    final MethodHandle createCq;
    final MethodHandle destroyCq;
    final MethodHandle resizeCq;
    final MethodHandle getCqEvent;
    final MethodHandle ackCqEvents;
    final MethodHandle createQp;
    final MethodHandle modifyQp;
    final MethodHandle queryQp;
    final MethodHandle destroyQp;
    /** {@code ibv_qp_to_qp_ex} (rdma-core 25+): the {@code struct ibv_qp_ex} of a QP from create_qp_ex, or NULL. */
    final MethodHandle qpToQpEx;
    final MethodHandle attachMcast;
    final MethodHandle detachMcast;
    final MethodHandle createSrq;
    final MethodHandle modifySrq;
    final MethodHandle querySrq;
    final MethodHandle destroySrq;
    final MethodHandle createAh;
    final MethodHandle destroyAh;
    final MethodHandle getAsyncEvent;
    final MethodHandle ackAsyncEvent;
    /** The context's {@code verbs_context.query_port} (what the {@code ibv_query_port} macro calls). */
    final MethodHandle queryPortOp;
    final MethodHandle poll;

    private final SymbolLookup library;

    /**
     * Loads the library. Throws IllegalArgumentException when it is not found (dlopen failed), or
     * NoSuchElementException naming a missing symbol (an rdma-core too old for ibv_reg_mr_iova: v29).
     */
    LibIbverbs(String libraryName) {
        library = SymbolLookup.libraryLookup(libraryName, Arena.global());
        getDeviceList = errnoCall("ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS));
        getDeviceName = plain("ibv_get_device_name", FunctionDescriptor.of(ADDRESS.withTargetLayout(
                java.lang.foreign.MemoryLayout.sequenceLayout(64, JAVA_BYTE)), ADDRESS));
        getDeviceGuid = plain("ibv_get_device_guid", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        openDevice = errnoCall("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS));
        closeDevice = errnoCall("ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        queryDevice = errnoCall("ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        queryPortCompat = errnoCall("ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
        queryGid = errnoCall("ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS));
        // ibv_query_gid_ex and ibv_query_gid_table are inline wrappers that pass sizeof(struct ibv_gid_entry)
        queryGidEx = errnoCall("_ibv_query_gid_ex",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
        queryGidTable = plain("_ibv_query_gid_table",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG));
        allocPd = errnoCall("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS));
        deallocPd = errnoCall("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        regMr = errnoCall("ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        regMrIova = errnoCall("ibv_reg_mr_iova",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT));
        deregMr = errnoCall("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        reregMr = errnoCall("ibv_rereg_mr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        createCompChannel = errnoCall("ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS));
        destroyCompChannel = errnoCall("ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createCq = errnoCall("ibv_create_cq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        destroyCq = errnoCall("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        resizeCq = errnoCall("ibv_resize_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        getCqEvent = errnoCall("ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        ackCqEvents = plain("ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        createQp = errnoCall("ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        modifyQp = errnoCall("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        queryQp = errnoCall("ibv_query_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
        destroyQp = errnoCall("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        qpToQpEx = plain("ibv_qp_to_qp_ex", FunctionDescriptor.of(ADDRESS, ADDRESS));
        attachMcast = errnoCall("ibv_attach_mcast", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT));
        detachMcast = errnoCall("ibv_detach_mcast", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT));
        createSrq = errnoCall("ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        modifySrq = errnoCall("ibv_modify_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        querySrq = errnoCall("ibv_query_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        destroySrq = errnoCall("ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createAh = errnoCall("ibv_create_ah", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        destroyAh = errnoCall("ibv_destroy_ah", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getAsyncEvent = errnoCall("ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        ackAsyncEvent = plain("ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS));
        queryPortOp = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG),
                Linker.Option.captureCallState("errno"));
        poll = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("poll"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Linker.Option.captureCallState("errno"));
    }

    private MethodHandle errnoCall(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(library.findOrThrow(name), descriptor, Linker.Option.captureCallState("errno"));
    }

    private MethodHandle plain(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(library.findOrThrow(name), descriptor);
    }

    // ---- calling conventions of the control path (allocation is fine here) ----

    /** Calls a function returning a pointer; NULL is a failure with errno. */
    static MemorySegment pointer(String verb, MethodHandle handle, Object... args) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment result = (MemorySegment) handle.invokeWithArguments(prepend(state, args));
            if (result.equals(MemorySegment.NULL)) {
                int errno = state.get(JAVA_INT, ERRNO);
                throw new VerbsException(Errno.of(errno == 0 ? Errno.ENOMEM.number() : errno),
                        verb + " failed (errno " + errno + ")");
            }
            return result;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(verb + ": native call failed", t);
        }
    }

    /** Calls a function returning 0 or an errno (positive, or -1 with errno set). */
    static void status(String verb, MethodHandle handle, Object... args) {
        int errno = statusOf(handle, args);
        if (errno != 0) {
            throw new VerbsException(Errno.of(errno), verb + " failed (errno " + errno + ")");
        }
    }

    /** The errno of a status-returning call, 0 on success. */
    static int statusOf(MethodHandle handle, Object... args) {
        return statusOf(null, handle, args);
    }

    /**
     * The same through a function pointer: a downcall handle without a fixed address takes the target
     * first, then the errno capture segment, then the arguments.
     */
    static int statusOf(MemorySegment function, MethodHandle handle, Object... args) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            Object[] withState = prepend(state, args);
            int ret = (int) handle.invokeWithArguments(function == null ? withState : prependTarget(function, withState));
            if (ret == 0) {
                return 0;
            }
            if (ret > 0) {
                return ret;
            }
            int errno = state.get(JAVA_INT, ERRNO);
            return errno != 0 ? errno : -ret;
        } catch (Throwable t) {
            throw new IllegalStateException("native call failed", t);
        }
    }

    /** Calls a function returning a value ≥ 0 or -1 with errno (as fcntl(2) does); returns the value. */
    static int valueOrErrno(String call, MethodHandle handle, Object... args) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int ret = (int) handle.invokeWithArguments(prepend(state, args));
            if (ret < 0) {
                int errno = state.get(JAVA_INT, ERRNO);
                throw new VerbsException(Errno.of(errno), call + " failed (errno " + errno + ")");
            }
            return ret;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(call + ": native call failed", t);
        }
    }

    /** Calls a function without errno capture. */
    static Object call(MethodHandle handle, Object... args) {
        try {
            return handle.invokeWithArguments(args);
        } catch (Throwable t) {
            throw new IllegalStateException("native call failed", t);
        }
    }

    /** poll(2) on one fd for POLLIN: true when readable within {@code timeoutMillis} (0: just look). */
    boolean readable(int fd, int timeoutMillis) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(Layouts.POLLFD);
            pollfd.set(JAVA_INT, 0, fd);
            pollfd.set(java.lang.foreign.ValueLayout.JAVA_SHORT, 4, (short) 1);   // POLLIN
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            while (true) {
                MemorySegment state = arena.allocate(CALL_STATE);
                int wait = (int) Math.max(0, (deadline - System.nanoTime()) / 1_000_000L);
                int ret = (int) poll.invokeExact(state, pollfd, 1L, wait);
                if (ret >= 0) {
                    return ret > 0;
                }
                if (state.get(JAVA_INT, ERRNO) != 4) {   // anything but EINTR
                    throw new VerbsException(Errno.of(state.get(JAVA_INT, ERRNO)), "poll(2) failed");
                }
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("poll(2) failed", t);
        }
    }

    private static Object[] prependTarget(MemorySegment function, Object[] args) {
        return prepend(function, args);
    }

    private static Object[] prepend(MemorySegment state, Object[] args) {
        Object[] all = new Object[args.length + 1];
        all[0] = state;
        System.arraycopy(args, 0, all, 1, args.length);
        return all;
    }
}
