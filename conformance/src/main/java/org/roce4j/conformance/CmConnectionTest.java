package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.PrivateDataLimits;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;

/**
 * rdma_cm connection set-up as librdmacm applications see it: REQ / REP / RTU carrying private data
 * both ways (IBTA 12.6.5, 12.6.8, 12.6.9; Linux cma.c gives the consumer the whole private data field
 * after rdma_cm's header, zero-padded), a QP left in RTS that carries a SEND, and REJ with the
 * consumer's reason and data (IBTA 12.6.7, reason 28).
 */
@ExtendWith(Backend.Resolver.class)
class CmConnectionTest {
    private static final byte[] CLIENT_HELLO = "client hello".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERVER_HELLO = "server hello".getBytes(StandardCharsets.US_ASCII);
    /** IBTA Table 112: REJ reason 28, consumer reject; what rdma_reject sends. */
    static final int CONSUMER_REJECT = 28;

    private final Backend backend;

    CmConnectionTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("IBTA 12.6.5/12.6.8/12.6.9, cma.c: connect/accept carry private data both ways, ESTABLISHED on both sides, and the QPs carry a SEND")
    void connectAndAcceptCarryPrivateDataBothWays() throws Exception {
        try (CmSide client = CmSide.first(backend); CmSide server = CmSide.second(backend)) {
            CmId listener = server.listener(4);
            CmId id = client.resolvedTowards(listener.localAddress());
            Qp clientQp = client.createQp(id);
            id.connect(ConnParam.of(CLIENT_HELLO));

            CmSide.Seen request = server.await("event at the listener after rdma_connect", CmEventType.CONNECT_REQUEST);
            assertThat(request.listenId()).as("listen_id of the CONNECT_REQUEST").containsSame(listener);
            assertThat(request.id()).as("the new id").isNotSameAs(listener);
            assertPrivateData("REQ private data at the server", request.privateData(), CLIENT_HELLO,
                    PrivateDataLimits.connect(id.portSpace()));
            CmId child = server.track(request.id());
            Qp serverQp = server.createQp(child);
            Mr landing = server.register(serverQp, 64);
            serverQp.postRecv(RecvWr.of(1, landing, 0, 64));
            child.accept(ConnParam.of(SERVER_HELLO));

            CmSide.Seen established = client.await("event at the client after rdma_accept", CmEventType.ESTABLISHED);
            assertPrivateData("REP private data at the client", established.privateData(), SERVER_HELLO,
                    PrivateDataLimits.accept(id.portSpace()));
            server.await("event at the server after the RTU", CmEventType.ESTABLISHED);
            assertThat(child.peerAddress().getAddress()).as("the server's peer address").isEqualTo(client.address);
            assertThat(id.peerAddress()).as("the client's peer address").isEqualTo(listener.localAddress());

            sendOver(clientQp, client.register(clientQp, 64), 0, 2, serverQp, landing, 1, CLIENT_HELLO,
                    "the SEND over the rdma_cm connection");
        }
    }

    @Test
    @DisplayName("librdmacm rdma_init_qp_attr / rdma_establish (rping -q): QPs the applications made and moved themselves; the client gets CONNECT_RESPONSE, its rdma_establish sends the RTU, the server is ESTABLISHED; SENDs both ways")
    void ownQpsMovedWithInitQpAttrConnectThroughEstablish() throws Exception {
        try (CmSide client = CmSide.first(backend); CmSide server = CmSide.second(backend)) {
            CmId listener = server.listener(4);
            CmId id = client.resolvedTowards(listener.localAddress());
            Qp clientQp = client.createOwnQp(id);
            Expect.succeeds("rdma_connect with conn_param.qp_num", () -> id.connect(ConnParam.defaults().withQpNum(clientQp.qpNum())));

            CmSide.Seen request = server.await("event at the listener after rdma_connect", CmEventType.CONNECT_REQUEST);
            CmId child = server.track(request.id());
            Qp serverQp = server.createOwnQp(child);
            CmSide.selfModify(child, serverQp); // before rdma_accept, as rping_accept does
            Mr serverMemory = server.register(serverQp, 64);
            serverQp.postRecv(RecvWr.of(1, serverMemory, 0, 64));
            Expect.succeeds("rdma_accept with conn_param.qp_num",
                    () -> child.accept(ConnParam.defaults().withQpNum(serverQp.qpNum())));

            CmSide.Seen response = client.await("event at the client (no QP of rdma_create_qp) after rdma_accept",
                    CmEventType.CONNECT_RESPONSE);
            assertThat(response.conn().orElseThrow().qpNum()).as("the server's QPN in the REP").isEqualTo(serverQp.qpNum());
            CmSide.selfModify(id, clientQp);
            Mr clientMemory = client.register(clientQp, 64);
            clientQp.postRecv(RecvWr.of(3, clientMemory, 32, 32));
            Expect.succeeds("rdma_establish", id::establish);
            server.await("event at the server after rdma_establish's RTU", CmEventType.ESTABLISHED);

            sendOver(clientQp, clientMemory, 0, 2, serverQp, serverMemory, 1, CLIENT_HELLO, "the client's SEND");
            sendOver(serverQp, serverMemory, 32, 4, clientQp, clientMemory, 3, SERVER_HELLO, "the server's SEND");
        }
    }

    @Test
    @DisplayName("IBTA 12.6.7, cma.c: rdma_reject sends REJ reason 28 (consumer reject); the client sees REJECTED, status 28, and the private data")
    void rejectCarriesTheConsumerReasonAndPrivateData() throws Exception {
        try (CmSide client = CmSide.first(backend); CmSide server = CmSide.second(backend)) {
            CmId listener = server.listener(4);
            CmId id = client.resolvedTowards(listener.localAddress());
            client.createQp(id);
            id.connect(ConnParam.defaults());
            CmSide.Seen request = server.await("event at the listener after rdma_connect", CmEventType.CONNECT_REQUEST);
            CmId child = server.track(request.id());
            byte[] why = "go away".getBytes(StandardCharsets.US_ASCII);
            child.reject(why);
            CmSide.Seen rejected = client.await("event at the client after rdma_reject", CmEventType.REJECTED,
                    CONSUMER_REJECT, Completions.PATIENCE);
            assertPrivateData("REJ private data at the client", rejected.privateData(), why, PrivateDataLimits.REJ);
        }
    }

    @Test
    @DisplayName("IBTA 12.6.7 Table 112, cm.c cm_req_handler: a REQ for a service ID nobody listens on is rejected with reason 8; the client sees REJECTED status 8")
    void connectToAPortNobodyListensOnIsRejectedWithInvalidServiceId() throws Exception {
        try (CmSide client = CmSide.first(backend); CmSide server = CmSide.second(backend)) {
            CmId closed = server.listener(1);
            InetSocketAddress nobody = closed.localAddress();
            closed.close();
            CmId id = client.resolvedTowards(nobody);
            client.createQp(id);
            id.connect(ConnParam.defaults());
            client.await("event after rdma_connect to a port nobody listens on", CmEventType.REJECTED, 8,
                    Completions.PATIENCE);
        }
    }

    @Test
    @DisplayName("rdma_cm: a listener on one device accepts a client on the same device (loopback)")
    void loopbackOnOneDevice() throws Exception {
        try (CmSide client = CmSide.first(backend); CmSide server = CmSide.first(backend)) {
            CmId listener = server.listener(4);
            CmId id = client.resolvedTowards(listener.localAddress());
            client.createQp(id);
            id.connect(ConnParam.of(CLIENT_HELLO));
            CmSide.Seen request = server.await("event at the listener", CmEventType.CONNECT_REQUEST);
            CmId child = server.track(request.id());
            server.createQp(child);
            child.accept(ConnParam.defaults());
            client.await("event at the client after rdma_accept", CmEventType.ESTABLISHED);
            server.await("event at the server after the RTU", CmEventType.ESTABLISHED);
            assertThat(child.verbs().orElseThrow().device().name()).as("both ends on one device")
                    .isEqualTo(id.verbs().orElseThrow().device().name());
        }
    }

    /** The event carries the whole field (cma.c: private_data_len = field − header): the data, then zeros. */
    /**
     * SENDs {@code data} from {@code memory} at {@code offset} on {@code from} (work request {@code sendId})
     * to {@code to}, whose receive {@code recvId} waits at the same offset of {@code landing}; both
     * complete and the bytes arrived.
     */
    private static void sendOver(Qp from, Mr memory, int offset, long sendId, Qp to, Mr landing, long recvId,
                                 byte[] data, String what) {
        Bytes.write(memory.segment(), offset, data);
        from.postSend(SendWr.send(sendId, memory, offset, data.length));
        Expect.success(Completions.awaitOne(CmSide.cqOf(from)), sendId, WcOpcode.SEND);
        Expect.success(Completions.awaitOne(CmSide.cqOf(to)), recvId, WcOpcode.RECV);
        Bytes.assertAt(landing.segment(), offset, data, what);
    }

    static void assertPrivateData(String check, byte[] observed, byte[] sent, int field) {
        Expect.outcome(check + ": length", field, observed.length);
        assertThat(Arrays.copyOf(observed, sent.length)).as(check).isEqualTo(sent);
        assertThat(Arrays.copyOfRange(observed, sent.length, observed.length)).as(check + ": padding")
                .containsOnly((byte) 0);
    }
}
