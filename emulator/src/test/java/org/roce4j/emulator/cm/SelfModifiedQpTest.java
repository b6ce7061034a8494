package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.emulator.cm.CmNodes.expect;
import static org.roce4j.emulator.cm.CmNodes.expectAndAck;
import static org.roce4j.emulator.cm.CmNodes.param;
import static org.roce4j.verbs.QpAttrMask.ACCESS_FLAGS;
import static org.roce4j.verbs.QpAttrMask.AV;
import static org.roce4j.verbs.QpAttrMask.DEST_QPN;
import static org.roce4j.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static org.roce4j.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static org.roce4j.verbs.QpAttrMask.MIN_RNR_TIMER;
import static org.roce4j.verbs.QpAttrMask.PATH_MTU;
import static org.roce4j.verbs.QpAttrMask.PKEY_INDEX;
import static org.roce4j.verbs.QpAttrMask.PORT;
import static org.roce4j.verbs.QpAttrMask.RETRY_CNT;
import static org.roce4j.verbs.QpAttrMask.RNR_RETRY;
import static org.roce4j.verbs.QpAttrMask.RQ_PSN;
import static org.roce4j.verbs.QpAttrMask.SQ_PSN;
import static org.roce4j.verbs.QpAttrMask.STATE;
import static org.roce4j.verbs.QpAttrMask.TIMEOUT;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.PortSpace;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * rdma_init_qp_attr and rdma_establish: an application that makes and moves its own QP, as rping
 * {@code -q} does (rping.c rping_self_modify_qp), against the attributes the kernel computes.
 */
class SelfModifiedQpTest {
    private static final Set<QpAttrMask> INIT_MASK = EnumSet.of(STATE, ACCESS_FLAGS, PKEY_INDEX, PORT);
    /** cm.c cm_init_qp_rtr_attr for RC. */
    private static final Set<QpAttrMask> RTR_MASK = EnumSet.of(STATE, AV, PATH_MTU, DEST_QPN, RQ_PSN,
            MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER);
    /** cm.c cm_init_qp_rts_attr for RC. */
    private static final Set<QpAttrMask> RTS_MASK = EnumSet.of(STATE, SQ_PSN, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC,
            TIMEOUT);

    private final CmNodes nodes = new CmNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    /** A QP the application makes on the id's device and moves to INIT itself (rping.c rping_create_qp with -q). */
    private final class OwnQp {
        final Pd pd;
        final Cq cq;
        final MemorySegment memory = nodes.arena.allocate(4096, 4096);
        final Mr mr;
        final Qp qp;

        OwnQp(CmId id) {
            pd = id.verbs().orElseThrow().allocPd();
            cq = id.verbs().orElseThrow().createCq(16);
            mr = pd.regMr(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, new QpCap(4, 4, 1, 1, 0)));
            qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(id.portNum())
                    .qpAccessFlags(EnumSet.noneOf(AccessFlag.class)));
        }

        /** rping_self_modify_qp: INIT, RTR, RTS, each with what rdma_init_qp_attr gives. */
        void selfModify(CmId id) {
            for (QpState state : List.of(QpState.INIT, QpState.RTR, QpState.RTS)) {
                qp.modify(id.initQpAttributes(state));
            }
        }

        List<WorkCompletion> poll() {
            return cq.poll(16);
        }
    }

    /** A client id connecting to {@code port} (the server listening there) with an {@link OwnQp}'s number. */
    private record OwnQpClient(CmId id, OwnQp own) {
    }

    private OwnQpClient connectWithOwnQp(int port, String privateData) {
        nodes.listen(port, 4);
        CmId id = nodes.resolvedClient(port);
        OwnQp own = new OwnQp(id);
        id.connect(param(privateData).withQpNum(own.qp.qpNum()));
        return new OwnQpClient(id, own);
    }

    private static void assertEinval(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    @DisplayName("cma.c rdma_init_qp_attr: before rdma_connect (no ib_cm_id) every state gets cma_ib_init_qp_attr's INIT attributes — P_Key index 0, port 1, access 0")
    void beforeConnectTheAttributesAreTheInitOnes() {
        CmId clientId = nodes.resolvedClient(CmNodes.PORT);
        QpAttr attr = clientId.initQpAttributes(QpState.RTR);
        assertThat(attr.mask()).isEqualTo(INIT_MASK);
        assertThat(attr.qpState()).isEqualTo(QpState.RTR);
        assertThat(attr.pkeyIndex()).isZero();
        assertThat(attr.portNum()).isEqualTo(1);
        assertThat(attr.qpAccessFlags()).isEmpty();
    }

    @Test
    @DisplayName("ucma_init_qp_attr → ucma_get_ctx_dev: an id with no device is EINVAL; so is a listener (IB_CM_LISTEN)")
    void anIdWithoutADeviceOrListeningIsEinval() {
        assertEinval(() -> nodes.client.createId(PortSpace.TCP).initQpAttributes(QpState.INIT));
        CmId listener = nodes.server.createId(PortSpace.TCP);
        listener.bindAddr(CmNodes.socket("10.0.0.1", CmNodes.PORT));
        listener.listen(1);
        assertEinval(() -> listener.initQpAttributes(QpState.INIT));
    }

    @Test
    @DisplayName("cm.c cm_init_qp_rtr_attr / _rts_attr: with the REQ out and no REP, INIT is given (REMOTE_WRITE and READ/ATOMIC for responder resources) but RTR and RTS are EINVAL; RESET is EINVAL")
    void rtrBeforeTheRepIsEinval() {
        CmId clientId = connectWithOwnQp(CmNodes.PORT, null).id();
        QpAttr init = clientId.initQpAttributes(QpState.INIT);
        assertThat(init.mask()).isEqualTo(INIT_MASK);
        assertThat(init.qpAccessFlags()).containsExactlyInAnyOrder(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ,
                AccessFlag.REMOTE_ATOMIC);
        assertEinval(() -> clientId.initQpAttributes(QpState.RTR));
        assertEinval(() -> clientId.initQpAttributes(QpState.RTS));
        assertEinval(() -> clientId.initQpAttributes(QpState.RESET));
    }

    @Test
    @DisplayName("rping -q: both sides move their own QPs with rdma_init_qp_attr; the client gets CONNECT_RESPONSE (not ESTABLISHED), the RTU goes only at rdma_establish, the server is ESTABLISHED by it; SENDs flow both ways")
    void ownQpsOnBothSidesConnectThroughEstablish() {
        OwnQpClient connecting = connectWithOwnQp(CmNodes.PORT, "self");
        CmId clientId = connecting.id();
        OwnQp client = connecting.own();

        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        CmId serverId = request.id();
        request.ack();
        OwnQp server = new OwnQp(serverId);
        server.selfModify(serverId); // rping_accept: before rdma_accept ("allow transition to RTS before sending REP")
        assertThat(server.qp.state()).isEqualTo(QpState.RTS);
        QpAttr serverRtr = serverId.initQpAttributes(QpState.RTR);
        assertThat(serverRtr.mask()).isEqualTo(RTR_MASK);
        assertThat(serverRtr.destQpNum()).isEqualTo(client.qp.qpNum());
        server.qp.postRecv(RecvWr.of(1, server.mr, 0, 64));
        serverId.accept(param(null).withQpNum(server.qp.qpNum()));

        CmEvent response = expect(nodes.client, CmEventType.CONNECT_RESPONSE);
        assertThat(response.conn().orElseThrow().qpNum()).isEqualTo(server.qp.qpNum());
        response.ack();
        assertThat(nodes.server.pollEvent()).as("no RTU before rdma_establish").isEmpty();

        QpAttr rtr = clientId.initQpAttributes(QpState.RTR);
        QpAttr rts = clientId.initQpAttributes(QpState.RTS);
        assertThat(rtr.mask()).isEqualTo(RTR_MASK);
        assertThat(rts.mask()).isEqualTo(RTS_MASK);
        assertThat(rtr.destQpNum()).isEqualTo(server.qp.qpNum());
        // The PSNs cross: each side's rq_psn is the other's sq_psn (the REQ's and the REP's starting PSNs).
        assertThat(rts.sqPsn()).isEqualTo(serverRtr.rqPsn());
        assertThat(serverId.initQpAttributes(QpState.RTS).sqPsn()).isEqualTo(rtr.rqPsn());
        assertThat(rtr.ahAttr().dgid()).isEqualTo(server.qp.pd().context().queryGid(1, rtr.ahAttr().sgidIndex()));
        assertThat(List.of(rts.retryCnt(), rts.rnrRetry(), rts.maxRdAtomic(), rts.timeout())).containsExactly(7, 7, 1, 19);
        client.selfModify(clientId);
        client.qp.postRecv(RecvWr.of(2, client.mr, 0, 64));
        clientId.establish();

        expectAndAck(nodes.server, CmEventType.ESTABLISHED);
        assertThat(nodes.client.pollEvent()).as("librdmacm's rdma_establish raises no event on the active id").isEmpty();

        send(client, "to server");
        assertThat(server.poll()).singleElement().satisfies(wc -> assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS));
        assertThat(text(server.memory, 9)).isEqualTo("to server");
        send(server, "to client");
        assertThat(client.poll()).filteredOn(wc -> wc.wrId() == 2).singleElement()
                .satisfies(wc -> assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS));
        assertThat(text(client.memory, 9)).isEqualTo("to client");
    }

    @Test
    @DisplayName("One copy: rdma_init_qp_attr on an established pair gives exactly the values the CM put on its own rdma_create_qp QPs")
    void theCmsOwnQpsGetTheSameAttributes() {
        CmNodes.Connected c = nodes.connectClient();
        Set<QpAttrMask> all = EnumSet.allOf(QpAttrMask.class);
        for (var side : List.of(new Object[] {c.clientId(), c.client().qp}, new Object[] {c.serverId(), c.server().qp})) {
            CmId id = (CmId) side[0];
            QpAttr actual = ((Qp) side[1]).query(all);
            QpAttr rtr = id.initQpAttributes(QpState.RTR);
            QpAttr rts = id.initQpAttributes(QpState.RTS);
            assertThat(List.of(actual.destQpNum(), actual.rqPsn(), actual.pathMtu(), actual.maxDestRdAtomic(),
                    actual.minRnrTimer(), actual.ahAttr().dgid()))
                    .containsExactly(rtr.destQpNum(), rtr.rqPsn(), rtr.pathMtu(), rtr.maxDestRdAtomic(),
                            rtr.minRnrTimer(), rtr.ahAttr().dgid());
            assertThat(List.of(actual.sqPsn(), actual.timeout(), actual.retryCnt(), actual.rnrRetry(), actual.maxRdAtomic()))
                    .containsExactly(rts.sqPsn(), rts.timeout(), rts.retryCnt(), rts.rnrRetry(), rts.maxRdAtomic());
            assertThat(actual.qpAccessFlags()).isEqualTo(id.initQpAttributes(QpState.INIT).qpAccessFlags());
        }
    }

    @Test
    @DisplayName("librdmacm rdma_establish: EINVAL on an id with a QP of rdma_create_qp, and a second time once the RTU went")
    void establishIsRefusedWithACmQpAndTwice() {
        CmNodes.Connected c = nodes.connectClient();
        assertEinval(c.clientId()::establish);

        CmId clientId = connectWithOwnQp(CmNodes.PORT + 1, null).id();
        CmEvent request = nextRequest();
        CmId serverId = request.id();
        request.ack();
        serverId.accept(param(null).withQpNum(new OwnQp(serverId).qp.qpNum()));
        expectAndAck(nodes.client, CmEventType.CONNECT_RESPONSE);
        clientId.establish();
        assertEinval(clientId::establish);
    }

    @Test
    @DisplayName("cma.c cma_rep_recv: rdma_establish before the REP fails (ib_send_cm_rtu) and resets the client's connection to idle (its REJ); the server's REP then finds an idle id (cm_rep_handler ignores it) and ends UNREACHABLE after its retries")
    void establishBeforeTheRepEndsTheConnection() {
        CmId clientId = connectWithOwnQp(CmNodes.PORT, null).id();
        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        CmId serverId = request.id();
        request.ack();
        assertEinval(clientId::establish);
        assertEinval(() -> clientId.initQpAttributes(QpState.INIT)); // the connection is IDLE now
        serverId.accept(param(null).withQpNum(new OwnQp(serverId).qp.qpNum()));
        CmEvent unreachable = nodes.server.getEvent(java.time.Duration.ofSeconds(200)).orElseThrow();
        assertThat(unreachable.type()).isEqualTo(CmEventType.UNREACHABLE);
        assertThat(nodes.client.pollEvent()).isEmpty();
    }

    /** The next CONNECT_REQUEST on the server, skipping the ESTABLISHED of an earlier connection. */
    private CmEvent nextRequest() {
        while (true) {
            CmEvent event = nodes.server.getEvent(CmNodes.WAIT).orElseThrow();
            if (event.type() == CmEventType.CONNECT_REQUEST) {
                return event;
            }
            event.ack();
        }
    }

    private static void send(OwnQp from, String text) {
        from.memory.asByteBuffer().put(text.getBytes(StandardCharsets.US_ASCII));
        from.qp.postSend(SendWr.send(9, from.mr, 0, text.length()));
        assertThat(from.poll()).singleElement().satisfies(wc -> assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS));
    }

    private static String text(MemorySegment memory, int length) {
        byte[] bytes = new byte[length];
        memory.asByteBuffer().get(bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
