package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.cm.CmNodes.expect;
import static org.roce4j.emulator.cm.CmNodes.expectAndAck;
import static org.roce4j.emulator.cm.CmNodes.param;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.PortSpace;
import org.roce4j.cm.UdParam;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.ServiceId;
import org.roce4j.wire.mad.SidrReply;
import org.roce4j.wire.mad.SidrRequest;

/** The UDP port space: SIDR_REQ / SIDR_REP (IBTA 12.11) as rdma_cm and udaddy use them. */
class SidrTest {
    @TempDir
    Path dir;
    private final CmNodes nodes = new CmNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    private CmId udClient(int port) {
        CmId id = nodes.client.createId(PortSpace.UDP);
        id.resolveAddr(null, CmNodes.socket("10.0.0.1", port), CmNodes.WAIT);
        expectAndAck(nodes.client, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(CmNodes.WAIT);
        expectAndAck(nodes.client, CmEventType.ROUTE_RESOLVED);
        return id;
    }

    @Test
    @DisplayName("rdma_connect of a UDP id: SIDR_REQ with private data, CONNECT_REQUEST, accept's SIDR_REP gives the QPN and Q_Key 0x01234567; a UD SEND with them arrives")
    void resolveServiceThenSend() throws Exception {
        nodes.fabric.tap(dir.resolve("sidr.pcap"));
        CmId listener = nodes.server.createId(PortSpace.UDP);
        listener.bindAddr(CmNodes.socket("0.0.0.0", CmNodes.PORT));
        listener.listen(4);
        CmId clientId = udClient(CmNodes.PORT);
        CmNodes.Endpoint client = nodes.endpoint(clientId);
        clientId.connect(param("udaddy"));

        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        assertThat(new String(request.privateData(), 0, 6, StandardCharsets.US_ASCII)).isEqualTo("udaddy");
        assertThat(request.privateData()).hasSize(216 - 36);
        assertThat(request.ud()).isPresent();
        CmId serverId = request.id();
        request.ack();
        CmNodes.Endpoint server = nodes.endpoint(serverId);
        server.qp.postRecv(RecvWr.of(1, server.mr, 0, 1024));
        serverId.accept(param("welcome"));

        CmEvent established = expect(nodes.client, CmEventType.ESTABLISHED);
        UdParam ud = established.ud().orElseThrow();
        assertThat(ud.qpNum()).isEqualTo(server.qp.qpNum());
        assertThat(ud.qkey()).isEqualTo(UdParam.RDMA_UDP_QKEY);
        assertThat(new String(ud.privateData(), 0, 7, StandardCharsets.US_ASCII)).isEqualTo("welcome");
        established.ack();
        assertThat(nodes.server.pollEvent()).isEmpty(); // the UD side has no ESTABLISHED of its own

        Ah ah = client.pd.createAh(ud.ahAttr());
        client.memory.asByteBuffer().put("datagram".getBytes(StandardCharsets.US_ASCII));
        client.qp.postSend(SendWr.send(2, client.mr, 0, 8).ud(ah, ud.qpNum(), ud.qkey()));
        assertThat(server.poll()).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.byteLen()).isEqualTo(8 + 40); // UD: the GRH's 40 bytes first
        });
        nodes.fabric.close();

        // Against udaddy's SIDR in rxe_udaddy_sidr.pcap: the same P_Key, service ID layout, header, status and Q_Key.
        Path reference = Path.of(System.getProperty("roce4j.repo.root", ".")).resolveSibling("shared")
                .resolve("reference-pcaps").resolve("rxe_udaddy_sidr.pcap");
        RequiredInCi.require(Files.isRegularFile(reference), "the reference capture " + reference);
        List<CmWireBytesTest.Mad> ours = CmWireBytesTest.cmMads(dir.resolve("sidr.pcap"));
        List<CmWireBytesTest.Mad> rxe = CmWireBytesTest.cmMads(reference);
        for (List<CmWireBytesTest.Mad> run : List.of(ours, rxe)) {
            SidrRequest req = (SidrRequest) run.get(0).decoded().message();
            SidrReply rep = (SidrReply) run.get(1).decoded().message();
            long tid = run.get(0).decoded().header().transactionId();
            assertThat(tid >>> 32).isEqualTo(2);
            assertThat((int) tid).isEqualTo(Integer.reverseBytes(req.requestId()));
            assertThat(run.get(1).decoded().header().transactionId()).isEqualTo(tid);
            assertThat(req.pkey()).isEqualTo(0xFFFF);
            assertThat(ServiceId.portSpace(req.serviceId())).isEqualTo(0x0111);
            assertThat(CmaHeader.decode(req.privateData(), 0, req.privateData().length)).isPresent();
            assertThat(rep.requestId()).isEqualTo(req.requestId());
            assertThat(rep.serviceId()).isEqualTo(req.serviceId());
            assertThat(List.of(rep.status(), rep.additionalInfoLength(), rep.qkey())).isEqualTo(List.of(0, 0, 0x01234567));
            assertThat(run.get(0).udpSourcePort()).isEqualTo(55410);
        }
    }

    @Test
    @DisplayName("cm_sidr_req_handler: nobody listens — SIDR_REP status 1 (unsupported), and the client sees UNREACHABLE with status 1")
    void noListenerIsUnsupported() {
        CmId clientId = udClient(9999);
        nodes.endpoint(clientId);
        clientId.connect(param(null));
        CmEvent unreachable = expect(nodes.client, CmEventType.UNREACHABLE);
        assertThat(unreachable.status()).isEqualTo(1);
        unreachable.ack();
    }

    @Test
    @DisplayName("rdma_reject of a UDP id: SIDR_REP status 2 (rejected) — UNREACHABLE with status 2 and the private data")
    void rejectIsSidrReject() {
        CmId listener = nodes.server.createId(PortSpace.UDP);
        listener.bindAddr(CmNodes.socket("0.0.0.0", CmNodes.PORT));
        listener.listen(4);
        CmId clientId = udClient(CmNodes.PORT);
        nodes.endpoint(clientId);
        clientId.connect(param(null));
        CmEvent request = expect(nodes.server, CmEventType.CONNECT_REQUEST);
        request.ack();
        request.id().reject("no".getBytes(StandardCharsets.US_ASCII));
        CmEvent unreachable = expect(nodes.client, CmEventType.UNREACHABLE);
        assertThat(unreachable.status()).isEqualTo(2);
        assertThat(new String(unreachable.privateData(), 0, 2, StandardCharsets.US_ASCII)).isEqualTo("no");
        unreachable.ack();
    }
}
