package org.roce4j.emulator.cm;

import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.fabric.Agent;
import org.roce4j.emulator.node.GsiReceiver;
import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.CmMad;
import org.roce4j.wire.mad.CmMessage;
import org.roce4j.wire.mad.ConnectReject;
import org.roce4j.wire.mad.ConnectReply;
import org.roce4j.wire.mad.ConnectRequest;
import org.roce4j.wire.mad.DecodedCmMad;
import org.roce4j.wire.mad.DisconnectReply;
import org.roce4j.wire.mad.DisconnectRequest;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.MessageReceiptAck;
import org.roce4j.wire.mad.ReadyToUse;
import org.roce4j.wire.mad.SidrReply;
import org.roce4j.wire.mad.SidrRequest;
import org.roce4j.wire.mad.SidrStatus;

/**
 * A node's communication manager, Linux's {@code ib_cm} ({@code drivers/infiniband/core/cm.c}):
 * it owns QP 1 (through its {@link GsiAgent}), decodes the CM MADs, finds the connection each is
 * for by communication ID, hands REQs to whoever listens on their service ID, and runs the
 * connections' timers as one {@link Agent} of the fabric. Everything runs under the fabric lock.
 *
 * <p>Connections are found by our communication ID ({@code cm.local_id_table}) and, for duplicate
 * REQs, by the peer's ID and CA GUID ({@code cm.remote_id_table}); a connection leaves both when it
 * returns to IDLE with nobody above it or when its timewait ends, so nothing here only grows.
 */
public final class CommunicationManager implements Agent, GsiReceiver, GsiAgent.MadHandler {
    /** The high half of our transaction IDs: the MAD agent's {@code hi_tid} (2 in the reference captures). */
    private static final long HI_TID = 2;

    /** Who listens on service IDs: the rdma_cm layer. */
    interface RequestListeners {
        /**
         * A REQ for a service ID arrived. {@return the user of the new connection, or null when nobody
         * listens (the CM then rejects with reason 8) — or when the listener rejected it itself}
         */
        CmUser connectRequest(CmConnection connection, ConnectRequest request);

        /** A SIDR_REQ arrived; {@return the user, or null when nobody listens (a SIDR_REP "unsupported" follows)} */
        CmUser sidrRequest(CmConnection connection, SidrRequest request);

    }

    record RemoteKey(int remoteId, long caGuid) {
    }

    /** cm.c's remote_sidr_table: a SIDR_REQ is known by its request ID and the sender's GID. */
    record SidrKey(int requestId, Gid source) {
    }

    final Rnic rnic;
    private final GsiAgent gsi;
    private final CmTimers timers = new CmTimers();
    final RandomGenerator random;
    /** cm.c {@code cm.random_id_operand}: IDs are a counter XOR this, so they do not repeat across restarts. */
    private final int idOperand;
    private int nextId;
    private final Map<Integer, CmConnection> byLocalId = new HashMap<>();
    private final Map<RemoteKey, CmConnection> byRemote = new HashMap<>();
    private final Map<SidrKey, CmConnection> sidrRequests = new HashMap<>();
    private RequestListeners listeners;
    private long staleMads;

    private CommunicationManager(Rnic rnic) {
        this.rnic = rnic;
        this.gsi = new GsiAgent(rnic);
        gsi.handler(this);
        // Seeded on the deterministic fabric (replays stay byte-identical), unpredictable elsewhere.
        this.random = rnic.isDeterministic() ? new SplittableRandom(rnic.nodeGuid) : new SecureRandom();
        this.idOperand = random.nextInt();
    }

    /** Gives a node its CM on QP 1 (done once, when the node is made). */
    public static CommunicationManager install(Rnic rnic) {
        CommunicationManager cm = new CommunicationManager(rnic);
        rnic.attachGsi(cm);
        rnic.fabric.addAgent(cm);
        return cm;
    }

    /** {@return the CM of a node} */
    public static CommunicationManager of(Rnic rnic) {
        if (!(rnic.gsi() instanceof CommunicationManager cm)) {
            throw new IllegalStateException(rnic.name + " has no communication manager");
        }
        return cm;
    }

    /** The host whose ids listen on this node's service IDs; a node belongs to one host. */
    void takeListeners(RequestListeners host) {
        rnic.run(() -> {
            if (listeners != null && listeners != host) {
                throw new IllegalStateException(rnic.name + " belongs to another rdma_cm host already");
            }
            listeners = host;
        });
    }

    // ---- receiving -------------------------------------------------------------------------

    @Override
    public void receive(PacketInfo packet, long nowNanos) {
        gsi.receive(packet, nowNanos);
    }

    @Override
    public void onMad(byte[] mad, Gid source, Gid destination, long nowNanos) {
        if (!(CmMad.decode(mad, 0, mad.length) instanceof DecodedCmMad.Decoded decoded)) {
            rnic.count(RnicCounter.DROPPED_BAD_MAD);
            return;
        }
        long tid = decoded.header().transactionId();
        switch (decoded.message()) {
            case ConnectRequest req -> requestReceived(req, tid, source, destination);
            case ConnectReply rep -> {
                CmConnection c = byLocalId.get(rep.remoteCommId());
                if (c != null) {
                    c.repReceived(rep);
                } else {
                    // cm_rep_handler: a REP for no connection of ours is rejected, invalid communication ID.
                    issue(tid, CmAttribute.REJ, new ConnectReject(0, rep.localCommId(), ConnectReject.REJECTED_REP, 0,
                            CmConnection.REJ_INVALID_COMM_ID, new byte[0], new byte[0]), destination, source);
                }
            }
            case ReadyToUse rtu -> find(rtu.remoteCommId(), rtu.localCommId(), CmConnection::rtuReceived);
            case ConnectReject rej -> {
                CmConnection c = rejected(rej);
                if (c != null && (rej.localCommId() == 0 || c.remoteId == 0 || c.remoteId == rej.localCommId())) {
                    c.rejReceived(rej);
                } else {
                    staleMads++;
                }
            }
            case MessageReceiptAck mra -> {
                CmConnection c = byLocalId.get(mra.remoteCommId());
                if (c != null) {
                    c.mraReceived(mra);
                } else {
                    staleMads++;
                }
            }
            case DisconnectRequest dreq -> {
                CmConnection c = byLocalId.get(dreq.remoteCommId());
                if (c != null && c.remoteId == dreq.localCommId()) {
                    c.dreqReceived(tid);
                } else {
                    // cm_dreq_handler → cm_issue_drep: a DREQ for a connection long gone still gets its DREP.
                    issue(tid, CmAttribute.DREP, new DisconnectReply(dreq.remoteCommId(), dreq.localCommId(), new byte[0]),
                            destination, source);
                }
            }
            case DisconnectReply drep -> find(drep.remoteCommId(), drep.localCommId(), CmConnection::drepReceived);
            case SidrRequest sidr -> sidrRequestReceived(sidr, tid, source, destination);
            case SidrReply reply -> {
                CmConnection c = byLocalId.get(reply.requestId());
                if (c != null) {
                    Sidr.replyReceived(c, reply);
                } else {
                    staleMads++;
                }
            }
        }
    }

    /**
     * cm.c cm_acquire_rejected_id: a REJ "timeout" from a peer that gave up on its REQ names no
     * comm ID of ours — its ARI carries its CA GUID, found with its comm ID in the remote table.
     */
    private CmConnection rejected(ConnectReject rej) {
        if (rej.reason() == CmConnection.REJ_TIMEOUT && rej.remoteCommId() == 0 && rej.ari().length >= 8) {
            long guid = 0;
            for (int i = 0; i < 8; i++) {
                guid = guid << 8 | (rej.ari()[i] & 0xFF);
            }
            return byRemote.get(new RemoteKey(rej.localCommId(), guid));
        }
        return byLocalId.get(rej.remoteCommId());
    }

    private void find(int localId, int remoteId, java.util.function.Consumer<CmConnection> action) {
        CmConnection c = byLocalId.get(localId);
        if (c != null && c.remoteId == remoteId) {
            action.accept(c);
        } else {
            staleMads++;
        }
    }

    /** cm_req_handler: a duplicate, a new connection for a listener, or a REJ "invalid service ID". */
    private void requestReceived(ConnectRequest req, long tid, Gid source, Gid destination) {
        CmConnection known = byRemote.get(new RemoteKey(req.localCommId(), req.localCaGuid()));
        if (known != null) {
            known.duplicateReqReceived();
            return;
        }
        CmConnection c = newConnection(destination, source);
        c.requestReceived(req, tid, rnic.activeMtu.value());
        rememberRemote(c);
        CmUser user = listeners == null ? null : listeners.connectRequest(c, req);
        if (user == null) {
            if (c.state == CmState.REQ_RCVD) {
                forget(c);
                issue(tid, CmAttribute.REJ, new ConnectReject(0, req.localCommId(), ConnectReject.REJECTED_REQ, 0,
                        CmConnection.REJ_INVALID_SERVICE_ID, new byte[0], new byte[0]), destination, source);
            }
            return;
        }
        c.user = user;
        c.prepareMra();
    }

    /** cm_sidr_req_handler: a duplicate (dropped), a request for a listener, or "unsupported". */
    private void sidrRequestReceived(SidrRequest request, long tid, Gid source, Gid destination) {
        // cm.remote_sidr_table: a SIDR_REQ again while the first is with the listener is dropped.
        SidrKey key = new SidrKey(request.requestId(), source);
        if (sidrRequests.containsKey(key)) {
            staleMads++;
            return;
        }
        CmConnection c = newConnection(destination, source);
        Sidr.requestReceived(c, request, tid);
        sidrRequests.put(key, c);
        CmUser user = listeners == null ? null : listeners.sidrRequest(c, request);
        if (user == null) {
            if (c.state == CmState.SIDR_REQ_RCVD) {
                Sidr.sendReply(c, SidrStatus.UNSUPPORTED, 0, 0, null);
            }
            forget(c);
            return;
        }
        c.user = user;
    }

    // ---- connections -------------------------------------------------------------------------

    /** A connection from our GID {@code local} to the peer's GID {@code remote}, with a fresh communication ID. */
    CmConnection newConnection(Gid local, Gid remote) {
        int id;
        do {
            // cm.c cm_alloc_id_priv: xa_alloc_cyclic's ID XOR random_id_operand, stored as a __be32 —
            // the wire shows its bytes in host (little-endian) order, the TID's low half the value.
            id = Integer.reverseBytes(nextId++ ^ idOperand);
        } while (id == 0 || byLocalId.containsKey(id));
        CmConnection c = new CmConnection(this, id, local, remote, pathTo(local, remote));
        byLocalId.put(id, c);
        return c;
    }

    NetworkPath pathTo(Gid local, Gid remote) {
        return new NetworkPath(local, AhAttr.of(remote, 0, 1));
    }

    void rememberRemote(CmConnection c) {
        byRemote.put(new RemoteKey(c.remoteId, c.remoteCaGuid), c);
    }

    /** The connection is done: out of both tables. */
    void forget(CmConnection c) {
        byLocalId.remove(c.localId, c);
        byRemote.remove(new RemoteKey(c.remoteId, c.remoteCaGuid), c);
        sidrRequests.remove(new SidrKey(c.remoteId, c.remoteGid), c);
    }

    /** ib_send_cm_sidr_rep: answered, the request leaves the SIDR table (a retry is a new request). */
    void sidrAnswered(CmConnection c) {
        sidrRequests.remove(new SidrKey(c.remoteId, c.remoteGid), c);
    }

    long formTid(int localId) {
        return HI_TID << 32 | Integer.toUnsignedLong(Integer.reverseBytes(localId));
    }

    long caGuid() {
        return rnic.nodeGuid;
    }

    void countStale() {
        staleMads++;
    }

    // ---- sending -----------------------------------------------------------------------------

    byte[] encode(long tid, CmAttribute attribute, CmMessage message) {
        byte[] mad = new byte[GsiAgent.MAD_SIZE];
        CmMad.encode(MadHeader.cm(tid, attribute), message, mad, 0);
        return mad;
    }

    void sendMad(NetworkPath path, byte[] mad) {
        gsi.send(path, mad);
    }

    /** A MAD in answer to one that found no connection (cm_issue_rej, cm_issue_drep): back to its source. */
    void issue(long tid, CmAttribute attribute, CmMessage message, Gid local, Gid remote) {
        sendMad(pathTo(local, remote), encode(tid, attribute, message));
    }

    // ---- timers ------------------------------------------------------------------------------

    CmTimers.Timer schedule(long delayNanos, Runnable action) {
        CmTimers.Timer timer = timers.schedule(rnic.clock.nanoTime() + delayNanos, action);
        rnic.wakeUp();
        return timer;
    }

    @Override
    public int doWork(long nowNanos) {
        return timers.runDue(nowNanos);
    }

    @Override
    public long nextDeadlineNanos() {
        return timers.nextDeadlineNanos();
    }

    // ---- for tests and diagnostics -------------------------------------------------------------

    int connections() {
        return byLocalId.size() + byRemote.size() + sidrRequests.size();
    }

    int liveTimers() {
        return timers.live();
    }

    long staleMads() {
        return staleMads;
    }
}
