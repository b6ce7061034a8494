package org.roce4j.emulator.cm;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.MulticastJoinFlag;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.PrivateDataLimits;
import org.roce4j.cm.UdParam;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.mad.ConnectReply;
import org.roce4j.wire.mad.SidrReply;

/**
 * An rdma_cm id of the emulator ({@code struct rdma_id_private} of cma.c with librdmacm's
 * checks): its state, its address and port binding, its device and QP, and — once it connects or
 * is the new id of a CONNECT_REQUEST — the {@link CmConnection} below it. Address and route work
 * is in {@link CmIdAddressing}, the connection's QP attributes and messages in {@link CmIdConnecting}.
 * State is changed under the device's fabric lock (or the host's while the id has no device);
 * the CM's callbacks arrive holding the fabric lock.
 */
final class EmulatedCmId implements CmId, CmUser {
    final RdmaCmHost host;
    volatile EmulatedEventChannel channel;
    final PortSpace space;
    private final Object context;
    RdmaCmState state = RdmaCmState.IDLE;
    /** The bound address, or null for the wildcard (or unbound). */
    InetAddress boundAddress;
    int boundPort;
    boolean bound;
    /** The device: set by a specific bind, address resolution, or the REQ a new id came with. */
    Rnic rnic;
    int sgidIndex;
    Gid localGid;
    Gid remoteGid;
    InetSocketAddress peer;
    Qp qp;
    CmConnection connection;
    /** cma.c {@code id_priv->seq_num}: the first PSN this side sends, random 24 bits ({@link CmIdConnecting#startingPsn()}). */
    int startingPsn;
    boolean startingPsnDrawn;
    int backlog;
    /** CONNECT_REQUEST events queued and not yet taken (ucma's backlog accounting). */
    final AtomicInteger pendingRequests = new AtomicInteger();
    /** The listener a new id came from, for its CONNECT_REQUEST event. */
    EmulatedCmId listener;
    /** The timer of an address resolution that will fail, cancelled if the id goes first. */
    CmTimers.Timer resolutionTimer;
    private final AtomicInteger unackedEvents = new AtomicInteger();
    final CmIdAddressing addressing = new CmIdAddressing(this);
    final CmIdConnecting connecting = new CmIdConnecting(this);
    final CmMulticast multicast = new CmMulticast(this);

    EmulatedCmId(RdmaCmHost host, EmulatedEventChannel channel, PortSpace space, Object context) {
        this.host = host;
        this.channel = channel;
        this.space = space;
        this.context = context;
    }

    /** Runs {@code action} under the lock that guards this id: its device's fabric lock, else the host's. */
    <T> T locked(Supplier<T> action) {
        Rnic device = rnic;
        if (device != null) {
            return device.call(action);
        }
        synchronized (host) {
            if (rnic != null) {
                return rnic.call(action);
            }
            return action.get();
        }
    }

    void lockedRun(Runnable action) {
        locked(() -> {
            action.run();
            return null;
        });
    }

    void post(CmEventType type, int status, ConnParam conn) {
        host.raised(type, this, status);
        channel.post(new EmulatedCmEvent(type, this, type == CmEventType.CONNECT_REQUEST ? listener : null, status,
                conn, null));
    }

    void postUd(CmEventType type, int status, UdParam ud) {
        host.raised(type, this, status);
        channel.post(new EmulatedCmEvent(type, this, type == CmEventType.CONNECT_REQUEST ? listener : null, status,
                null, ud));
    }

    void postMulticast(CmEventType type, int status, UdParam ud, CmMulticast.Membership membership) {
        host.raised(type, this, status);
        channel.post(new EmulatedCmEvent(type, this, status, ud, membership));
    }

    /**
     * The application read {@code event}; {@return the event it gets}: a MULTICAST_JOIN whose QP
     * attachment fails becomes MULTICAST_ERROR with status -1 (librdmacm rdma_get_cm_event:
     * {@code ucma_process_join}'s {@code rdma_seterrno}).
     */
    EmulatedCmEvent eventTaken(EmulatedCmEvent event) {
        unackedEvents.incrementAndGet();
        if (event.type() == CmEventType.CONNECT_REQUEST && listener != null) {
            listener.pendingRequests.decrementAndGet();
        }
        CmMulticast.Membership membership = event.membership();
        if (membership == null) {
            return event;
        }
        membership.unackedEvents().incrementAndGet();
        if (event.type() == CmEventType.MULTICAST_JOIN && multicast.joinRead(membership) != 0) {
            host.raised(CmEventType.MULTICAST_ERROR, this, -1);
            return new EmulatedCmEvent(CmEventType.MULTICAST_ERROR, this, -1, event.ud().orElse(null), membership);
        }
        return event;
    }

    void eventAcked() {
        unackedEvents.decrementAndGet();
    }

    void checkState(String verb, RdmaCmState... allowed) {
        for (RdmaCmState s : allowed) {
            if (state == s) {
                return;
            }
        }
        throw new VerbsException(Errno.EINVAL, verb + ": the id is " + state);
    }

    InetAddress boundAddress() {
        return boundAddress;
    }

    // ---- CmId ------------------------------------------------------------------------------

    @Override
    public EventChannel channel() {
        return channel;
    }

    @Override
    public PortSpace portSpace() {
        return space;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void bindAddr(InetSocketAddress address) {
        addressing.bind(address);
    }

    @Override
    public void resolveAddr(InetSocketAddress source, InetSocketAddress destination, Duration timeout) {
        addressing.resolveAddr(source, destination, timeout);
    }

    @Override
    public void resolveRoute(Duration timeout) {
        addressing.resolveRoute();
    }

    @Override
    public void listen(int backlog) {
        addressing.listen(backlog);
    }

    @Override
    public Qp createQp(Pd pd, QpInitAttr attr) {
        return connecting.createQp(pd, attr);
    }

    @Override
    public void destroyQp() {
        lockedRun(() -> {
            if (qp != null) {
                Qp gone = qp;
                qp = null;
                gone.close();
            }
        });
    }

    @Override
    public Optional<Qp> qp() {
        return Optional.ofNullable(qp);
    }

    @Override
    public QpAttr initQpAttributes(QpState state) {
        return locked(() -> CmQpAttributes.of(this, state));
    }

    @Override
    public void establish() {
        connecting.establish();
    }

    @Override
    public void connect(ConnParam param) {
        connecting.connect(param);
    }

    @Override
    public void accept(ConnParam param) {
        connecting.accept(param);
    }

    @Override
    public void reject(byte[] privateData) {
        connecting.reject(privateData);
    }

    @Override
    public void disconnect() {
        connecting.disconnect();
    }

    @Override
    public void migrate(EventChannel to) {
        if (!(to instanceof EmulatedEventChannel target) || target.host != host) {
            throw new VerbsException(Errno.EINVAL, "rdma_migrate_id: the channel is not one of this host's");
        }
        EmulatedEventChannel from = channel;
        if (from == target) {
            return;
        }
        target.adopt(this);
        channel = target;
        from.moveEventsOf(this, target);
        from.release(this);
    }

    @Override
    public void joinMulticast(InetSocketAddress group, MulticastJoinFlag flag, Object context) {
        multicast.join(group, flag, context);
    }

    @Override
    public void leaveMulticast(InetSocketAddress group) {
        multicast.leave(group);
    }

    @Override
    public InetSocketAddress localAddress() {
        return locked(this::localAddressHeld);
    }

    /** The local address and port, read by a caller that holds the id's lock. */
    InetSocketAddress localAddressHeld() {
        InetAddress address = boundAddress != null ? boundAddress
                : localGid != null ? RdmaCmHost.addressOf(localGid) : RdmaCmHost.wildcard(peer);
        return new InetSocketAddress(address, boundPort);
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peer;
    }

    @Override
    public Optional<Context> verbs() {
        Rnic device = rnic;
        return device == null ? Optional.empty() : Optional.of(host.context(device));
    }

    @Override
    public int portNum() {
        return rnic == null ? 0 : 1;
    }

    @Override
    public void close() {
        if (unackedEvents.get() > 0) {
            throw new VerbsException(Errno.EBUSY, "rdma_destroy_id: " + unackedEvents.get()
                    + " event(s) of this id are not acknowledged");
        }
        lockedRun(() -> {
            if (state == RdmaCmState.DESTROYING) {
                return;
            }
            state = RdmaCmState.DESTROYING;
            if (resolutionTimer != null) {
                resolutionTimer.cancel();
                resolutionTimer = null;
            }
            multicast.leaveAll();
            if (connection != null) {
                CmConnection c = connection;
                connection = null;
                c.destroy(); // cm_destroy_id: REJ, DREQ or DREP as the state owes
            }
            if (qp instanceof org.roce4j.emulator.verbs.EmulatedQp emulated) {
                emulated.firstRequestHook = null;
            }
        });
        if (bound) {
            host.bindings.release(this, space, boundPort);
            bound = false;
        }
        channel.dropEventsOf(this);
        channel.release(this);
        // ucma_cleanup_ctx_events: the requests a listener leaves untaken are destroyed with it (each a REJ 28).
        for (EmulatedCmId child : channel.dropRequestsFor(this)) {
            child.close();
        }
    }

    // ---- CmUser: what the CM reports (under the fabric lock) --------------------------------

    @Override
    public void repReceived(CmConnection c, ConnectReply reply) {
        connecting.repReceived(reply);
    }

    @Override
    public void established(CmConnection c) {
        connecting.established();
    }

    @Override
    public void rejected(CmConnection c, int reason, byte[] privateData) {
        connecting.rejected(reason, privateData);
    }

    @Override
    public void unreachable(CmConnection c) {
        post(CmEventType.UNREACHABLE, CmTiming.ETIMEDOUT, null);
    }

    @Override
    public void disconnected(CmConnection c, int status) {
        // cma_ib_handler: DREQ/DREP received or the DREQ timed out — DISCONNECTED once, CONNECT → DISCONNECT.
        // The QP is left as it is: the application's rdma_disconnect moves it to ERR.
        if (state == RdmaCmState.CONNECT) {
            state = RdmaCmState.DISCONNECT;
            post(CmEventType.DISCONNECTED, status, null);
        }
    }

    @Override
    public void timewaitExit(CmConnection c) {
        if (state == RdmaCmState.DISCONNECT) {
            post(CmEventType.TIMEWAIT_EXIT, 0, null);
        }
    }

    @Override
    public void sidrReplyReceived(CmConnection c, SidrReply reply) {
        connecting.sidrReplyReceived(reply);
    }

    @Override
    public String toString() {
        return "CmId[" + space + " " + state + (rnic == null ? "" : " on " + rnic.name) + " port " + boundPort + "]";
    }

    static int privateDataLimit(PortSpace space, boolean connect) {
        return connect ? PrivateDataLimits.connect(space) : PrivateDataLimits.accept(space);
    }

    boolean isUd() {
        return space.qpType() == QpType.UD;
    }
}
