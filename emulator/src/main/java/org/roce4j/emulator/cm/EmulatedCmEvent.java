package org.roce4j.emulator.cm;

import java.util.Optional;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.UdParam;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/** One event as {@code rdma_get_cm_event} hands it out; its id counts it until it is acknowledged. */
final class EmulatedCmEvent implements CmEvent {
    private final CmEventType type;
    private final EmulatedCmId id;
    private final EmulatedCmId listenId;
    private final int status;
    private final ConnParam conn;
    private final UdParam ud;
    private final CmMulticast.Membership membership;
    private volatile boolean acked;

    EmulatedCmEvent(CmEventType type, EmulatedCmId id, EmulatedCmId listenId, int status, ConnParam conn, UdParam ud) {
        this(type, id, listenId, status, conn, ud, null);
    }

    /** An event of a multicast join: MULTICAST_JOIN or MULTICAST_ERROR. */
    EmulatedCmEvent(CmEventType type, EmulatedCmId id, int status, UdParam ud, CmMulticast.Membership membership) {
        this(type, id, null, status, null, ud, membership);
    }

    private EmulatedCmEvent(CmEventType type, EmulatedCmId id, EmulatedCmId listenId, int status, ConnParam conn,
                            UdParam ud, CmMulticast.Membership membership) {
        this.membership = membership;
        this.type = type;
        this.id = id;
        this.listenId = listenId;
        this.status = status;
        this.conn = conn;
        this.ud = ud;
    }

    @Override
    public CmEventType type() {
        return type;
    }

    @Override
    public CmId id() {
        return id;
    }

    EmulatedCmId emulatedId() {
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
        return membership == null ? Optional.empty() : Optional.ofNullable(membership.context());
    }

    /** {@return the multicast membership the event is of, or null} */
    CmMulticast.Membership membership() {
        return membership;
    }

    @Override
    public void ack() {
        synchronized (this) {
            if (acked) {
                throw new VerbsException(Errno.EINVAL, "rdma_ack_cm_event: the event was acknowledged already");
            }
            acked = true;
        }
        if (membership != null) {
            membership.unackedEvents().decrementAndGet();
        }
        id.eventAcked();
    }

    @Override
    public boolean isAcked() {
        return acked;
    }

    @Override
    public String toString() {
        return type.cName() + (status != 0 ? " status " + status : "") + " on " + id;
    }
}
