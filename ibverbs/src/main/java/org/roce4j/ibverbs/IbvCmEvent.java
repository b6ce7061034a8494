package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.VerbsException;

/**
 * {@code struct rdma_cm_event *} as librdmacm returned it. Everything is copied out when the event is
 * read — private data included — so it stays readable after {@link #ack()}, which frees the native
 * event. Until then the event counts against the id librdmacm counts it on (the listener for a
 * CONNECT_REQUEST, cma.c {@code ucma_process_conn_req}; the event's id otherwise): that id cannot be
 * destroyed before the ack.
 */
final class IbvCmEvent implements CmEvent {
    private static final long ID = Layouts.offset(RdmacmLayouts.RDMA_CM_EVENT, "id");
    private static final long LISTEN_ID = Layouts.offset(RdmacmLayouts.RDMA_CM_EVENT, "listen_id");
    private static final long EVENT = Layouts.offset(RdmacmLayouts.RDMA_CM_EVENT, "event");
    private static final long STATUS = Layouts.offset(RdmacmLayouts.RDMA_CM_EVENT, "status");
    private static final long PARAM = Layouts.offset(RdmacmLayouts.RDMA_CM_EVENT, "param");
    private static final long PRIVATE_DATA = Layouts.offset(RdmacmLayouts.RDMA_UD_PARAM, "private_data");

    private final CmRuntime runtime;
    private final MemorySegment event;
    private final CmEventType type;
    private final IbvCmId id;
    private final IbvCmId listenId;
    private final int status;
    private final ConnParam conn;
    private final UdParam ud;
    private final IbvCmId countedOn;
    private final IbvCmId.MulticastJoin join;
    private boolean acked;

    private IbvCmEvent(CmRuntime runtime, MemorySegment event, CmEventType type, IbvCmId id, IbvCmId listenId,
                       int status, ConnParam conn, UdParam ud, IbvCmId.MulticastJoin join) {
        this.runtime = runtime;
        this.join = join;
        if (join != null) {
            join.unackedEvents().incrementAndGet();
        }
        this.event = event;
        this.type = type;
        this.id = id;
        this.listenId = listenId;
        this.status = status;
        this.conn = conn;
        this.ud = ud;
        this.countedOn = type == CmEventType.CONNECT_REQUEST ? listenId : id;
        countedOn.addChild();
    }

    /**
     * Reads an event {@code rdma_get_cm_event} returned on {@code channel}. A CONNECT_REQUEST's new
     * {@code rdma_cm_id} becomes an id on that channel with the listener's port space and context (as
     * librdmacm gives the new id the listener's, cma.c {@code ucma_process_conn_req}). Returns null —
     * after acknowledging it — for an event the API has no name for (librdmacm's ADDRINFO_* and USER
     * events, raised only for its own rdma_getaddrinfo / rdma_create_ep, which this backend never
     * calls) or for an id that is gone.
     */
    static IbvCmEvent read(IbvEventChannel channel, MemorySegment event) {
        CmRuntime runtime = channel.runtime;
        Optional<CmEventType> type = CmEventType.of(event.get(JAVA_INT, EVENT));
        IbvCmId listenId = known(runtime, event.get(ADDRESS, LISTEN_ID));
        IbvCmId id;
        if (type.isPresent() && type.get() == CmEventType.CONNECT_REQUEST && listenId != null) {
            id = channel.adopt(event.get(ADDRESS, ID), listenId.portSpace(), listenId.context());
        } else {
            id = known(runtime, event.get(ADDRESS, ID));
        }
        if (type.isEmpty() || id == null) {
            LibIbverbs.status("rdma_ack_cm_event", runtime.cm.ackCmEvent, event);
            return null;
        }
        MemorySegment param = event.asSlice(PARAM, RdmacmLayouts.RDMA_CM_EVENT_PARAM.byteSize());
        boolean datagram = id.portSpace().qpType() == QpType.UD;
        ConnParam conn = null;
        UdParam ud = null;
        IbvCmId.MulticastJoin join = null;
        switch (type.get()) {
            // librdmacm rdma_get_cm_event: the ud param, the join's context in its private_data (an
            // ucma_process_join failure turns MULTICAST_JOIN into MULTICAST_ERROR and keeps it).
            case MULTICAST_JOIN, MULTICAST_ERROR -> {
                join = runtime.multicastJoins.get(param.get(ADDRESS, PRIVATE_DATA).address());
                ud = RdmacmStructs.readUdParam(param, false);
            }
            case CONNECT_REQUEST, ESTABLISHED -> {
                if (datagram) {
                    ud = RdmacmStructs.readUdParam(param);
                } else {
                    conn = RdmacmStructs.readConnParam(param);
                }
            }
            // librdmacm fills the conn param of these whatever the QP type (cma.c rdma_get_cm_event).
            case CONNECT_RESPONSE, REJECTED, DISCONNECTED -> conn = RdmacmStructs.readConnParam(param);
            default -> {
            }
        }
        return new IbvCmEvent(runtime, event, type.get(), id, listenId, event.get(JAVA_INT, STATUS), conn, ud, join);
    }

    private static IbvCmId known(CmRuntime runtime, MemorySegment id) {
        return id.equals(MemorySegment.NULL) ? null : runtime.ids.get(id.address());
    }

    @Override
    public CmEventType type() {
        return type;
    }

    @Override
    public CmId id() {
        return id;
    }

    @Override
    public Optional<CmId> listenId() {
        return Optional.ofNullable(listenId);
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public Optional<ConnParam> conn() {
        return Optional.ofNullable(conn);
    }

    @Override
    public Optional<UdParam> ud() {
        return Optional.ofNullable(ud);
    }

    @Override
    public Optional<Object> multicastContext() {
        return join == null ? Optional.empty() : Optional.ofNullable(join.context());
    }

    /** {@code rdma_ack_cm_event}; a second ack is EINVAL (in C it would free the event twice). */
    @Override
    public synchronized void ack() {
        if (acked) {
            throw new VerbsException(Errno.EINVAL, "rdma_ack_cm_event: the " + type.cName() + " event was acknowledged before");
        }
        LibIbverbs.status("rdma_ack_cm_event", runtime.cm.ackCmEvent, event);
        acked = true;
        countedOn.removeChild();
        if (join != null) {
            join.unackedEvents().decrementAndGet();
        }
    }

    @Override
    public synchronized boolean isAcked() {
        return acked;
    }

    @Override
    public String toString() {
        return "IbvCmEvent[" + type.cName() + ", status " + status + ", " + id + "]";
    }
}
