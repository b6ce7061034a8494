package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.cm.CmNodes.expect;
import static org.roce4j.emulator.cm.CmNodes.expectAndAck;
import static org.roce4j.emulator.cm.CmNodes.param;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.mad.CmMad;
import org.roce4j.wire.mad.CmPath;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.ConnectReply;
import org.roce4j.wire.mad.ConnectRequest;
import org.roce4j.wire.mad.DecodedCmMad;
import org.roce4j.wire.mad.ReadyToUse;
import org.roce4j.wire.mad.ServiceId;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * The CM MADs the emulator sends, field by field against what Linux rxe sent for rping in
 * {@code reference-pcaps/rxe_rping_cm.pcap}: the same headers around them (UD SEND Only to QP 1 from
 * QP 1, P_Key 0xFFFF, Q_Key 0x80010000, UDP source port 55410, TTL 64), the same service ID layout,
 * rdma_cm IP header, timeouts, retry counts and paths; only what is per connection (IDs, GUIDs,
 * PSNs, QPNs, addresses, ports) differs.
 */
class CmWireBytesTest {
    @TempDir
    Path dir;

    /** One CM MAD as captured: the packet around it and the decoded message. */
    record Mad(int udpSourcePort, int ttl, boolean dontFragment, Opcode opcode, int pkey, int destQp, boolean ackReq,
               int qkey, int sourceQp, DecodedCmMad.Decoded decoded) {
    }

    static List<Mad> cmMads(Path pcap) throws IOException {
        List<Mad> mads = new ArrayList<>();
        PacketInfo info = new PacketInfo();
        try (PcapReader reader = PcapReader.open(pcap)) {
            for (PcapRecord record : reader) {
                byte[] f = record.data();
                if (!info.parseFrame(f, 0, f.length) || info.destQp() != 1) {
                    continue;
                }
                int ip = info.ipOffset();
                int udp = info.udpOffset();
                DecodedCmMad decoded = CmMad.decode(f, info.payloadOffset(), 256);
                mads.add(new Mad((f[udp] & 0xFF) << 8 | f[udp + 1] & 0xFF, f[ip + 8] & 0xFF, (f[ip + 6] & 0x40) != 0,
                        info.opcode(), info.pkey(), info.destQp(), info.ackReq(), info.dethQkey(), info.dethSourceQp(),
                        (DecodedCmMad.Decoded) decoded));
            }
        }
        return mads;
    }

    private static List<Integer> headerWithoutTid(Mad mad) {
        org.roce4j.wire.mad.MadHeader h = mad.decoded().header();
        return List.of(h.baseVersion(), h.mgmtClass(), h.classVersion(), h.method(), h.status(), h.classSpecific(),
                h.attributeId(), h.attributeModifier());
    }

    private Path emulatedRping() throws IOException {
        Path pcap = dir.resolve("cm.pcap");
        try (CmNodes nodes = new CmNodes()) {
            nodes.fabric.tap(pcap);
            CmNodes.Connected c = nodes.connectClient();
            expectAndAck(nodes.server, CmEventType.ESTABLISHED);
            CmId clientId = c.clientId();
            CmId serverId = c.serverId();
            clientId.disconnect();
            expectAndAck(nodes.server, CmEventType.DISCONNECTED);
            serverId.disconnect();
            expectAndAck(nodes.client, CmEventType.DISCONNECTED);
        }
        return pcap;
    }

    private static Path reference() {
        Path file = Path.of(System.getProperty("roce4j.repo.root", ".")).resolveSibling("shared")
                .resolve("reference-pcaps").resolve("rxe_rping_cm.pcap");
        RequiredInCi.require(Files.isRegularFile(file), "the reference capture " + file);
        return file;
    }

    @Test
    @DisplayName("REQ, REP, RTU, DREQ, DREP: the packets around the MADs are rxe's (UD SEND Only QP 1 → QP 1, P_Key 0xFFFF, Q_Key 0x80010000, UDP port 55410, TTL 64, DF, AckReq)")
    void packetsAroundTheMadsAreRxes() throws IOException {
        List<Mad> ours = cmMads(emulatedRping());
        List<Mad> rxe = cmMads(reference()).subList(0, 5);
        assertThat(ours).extracting(m -> m.decoded().message().attribute())
                .containsExactlyElementsOf(rxe.stream().map(m -> m.decoded().message().attribute()).toList());
        for (int i = 0; i < ours.size(); i++) {
            Mad o = ours.get(i);
            Mad r = rxe.get(i);
            assertThat(List.of(o.udpSourcePort(), o.ttl(), o.dontFragment(), o.opcode(), o.pkey(), o.destQp(), o.ackReq(),
                    o.qkey(), o.sourceQp())).as("MAD %d", i)
                    .isEqualTo(List.of(r.udpSourcePort(), r.ttl(), r.dontFragment(), r.opcode(), r.pkey(), r.destQp(),
                            r.ackReq(), r.qkey(), r.sourceQp()));
            assertThat(headerWithoutTid(o)).isEqualTo(headerWithoutTid(r));
        }
    }

    @Test
    @DisplayName("The REQ is rping's: service ID 0x0000000001 06 port, CM response timeouts 20, max CM retries 15, local ACK timeout 19, LIDs 0xFFFF, the rdma_cm IP header; the TID is hi_tid 2 and the comm ID's bytes")
    void requestFieldsAreRxes() throws IOException {
        List<Mad> ours = cmMads(emulatedRping());
        List<Mad> rxe = cmMads(reference());
        ConnectRequest o = (ConnectRequest) ours.get(0).decoded().message();
        ConnectRequest r = (ConnectRequest) rxe.get(0).decoded().message();
        assertThat(ServiceId.portSpace(o.serviceId())).isEqualTo(ServiceId.portSpace(r.serviceId())).isEqualTo(0x0106);
        assertThat(ServiceId.port(o.serviceId())).isEqualTo(CmNodes.PORT);
        assertThat(List.of(o.localQkey(), o.responderResources(), o.initiatorDepth(), o.localEecn(), o.remoteEecn(),
                o.remoteCmResponseTimeout(), o.transportServiceType(), o.endToEndFlowControl(), o.localCmResponseTimeout(),
                o.retryCount(), o.pkey(), o.pathMtu(), o.rdcExists(), o.rnrRetryCount(), o.maxCmRetries(), o.srq(),
                o.extendedTransportType()))
                .isEqualTo(List.of(r.localQkey(), r.responderResources(), r.initiatorDepth(), r.localEecn(), r.remoteEecn(),
                        r.remoteCmResponseTimeout(), r.transportServiceType(), r.endToEndFlowControl(),
                        r.localCmResponseTimeout(), r.retryCount(), r.pkey(), r.pathMtu(), r.rdcExists(), r.rnrRetryCount(),
                        r.maxCmRetries(), r.srq(), r.extendedTransportType()));
        CmPath op = o.primaryPath();
        CmPath rp = r.primaryPath();
        assertThat(List.of(op.localLid(), op.remoteLid(), op.trafficClass(), op.hopLimit(), op.sl(), op.subnetLocal(),
                op.localAckTimeout()))
                .isEqualTo(List.of(rp.localLid(), rp.remoteLid(), rp.trafficClass(), rp.hopLimit(), rp.sl(), rp.subnetLocal(),
                        rp.localAckTimeout()));
        assertThat(op.localGid()).isEqualTo(org.roce4j.verbs.Gid.of(CmNodes.address("10.0.0.2")).raw());
        assertThat(op.remoteGid()).isEqualTo(org.roce4j.verbs.Gid.of(CmNodes.address("10.0.0.1")).raw());
        assertThat(o.alternatePath()).isEqualTo(r.alternatePath()).isEqualTo(CmPath.NONE);
        assertThat(o.localCaGuid()).isEqualTo(0x0000_00FF_FE00_0002L); // EUI-64 of 02:00:00:00:00:02
        CmaHeader oh = CmaHeader.decode(o.privateData(), 0, o.privateData().length).orElseThrow();
        CmaHeader rh = CmaHeader.decode(r.privateData(), 0, r.privateData().length).orElseThrow();
        assertThat(oh.ipVersion()).isEqualTo(rh.ipVersion()).isEqualTo(4);
        assertThat(oh.source()).isEqualTo(CmNodes.address("10.0.0.2"));
        assertThat(oh.destination()).isEqualTo(CmNodes.address("10.0.0.1"));
        assertThat(oh.sourcePort()).isBetween(32768, 60999);
        for (Mad mad : List.of(ours.get(0), rxe.get(0))) {
            long tid = mad.decoded().header().transactionId();
            ConnectRequest req = (ConnectRequest) mad.decoded().message();
            assertThat(tid >>> 32).isEqualTo(2);
            assertThat((int) tid).isEqualTo(Integer.reverseBytes(req.localCommId()));
        }
    }

    @Test
    @DisplayName("The REP answers with the REQ's TID, target ACK delay 15, RNR retry 7; the RTU crosses the IDs")
    void replyAndReadyToUseAreRxes() throws IOException {
        List<Mad> ours = cmMads(emulatedRping());
        List<Mad> rxe = cmMads(reference());
        for (List<Mad> run : List.of(ours, rxe)) {
            ConnectRequest req = (ConnectRequest) run.get(0).decoded().message();
            ConnectReply rep = (ConnectReply) run.get(1).decoded().message();
            ReadyToUse rtu = (ReadyToUse) run.get(2).decoded().message();
            assertThat(run.get(1).decoded().header().transactionId()).isEqualTo(run.get(0).decoded().header().transactionId());
            assertThat(run.get(2).decoded().header().transactionId()).isEqualTo(run.get(0).decoded().header().transactionId());
            assertThat(rep.remoteCommId()).isEqualTo(req.localCommId());
            assertThat(List.of(rep.localQkey(), rep.localEecn(), rep.targetAckDelay(), rep.failoverAccepted(),
                    rep.endToEndFlowControl(), rep.rnrRetryCount(), rep.srq())).isEqualTo(List.of(0, 0, 15, 0, false, 7, false));
            assertThat(rtu.localCommId()).isEqualTo(req.localCommId());
            assertThat(rtu.remoteCommId()).isEqualTo(rep.localCommId());
        }
    }

    @Test
    @DisplayName("The capture of a deterministic run decodes as CM in tshark (ConnectRequest … DisconnectReply), when tshark is installed")
    void tsharkDecodesTheCapture() throws Exception {
        Path pcap = emulatedRping();
        Path tshark = Path.of("/usr/bin/tshark");
        if (!Files.isExecutable(tshark)) {
            // Without tshark, wire's own codec read the capture in the tests above.
            assertThat(cmMads(pcap)).hasSize(5);
            return;
        }
        Process p = new ProcessBuilder(tshark.toString(), "-r", pcap.toString(), "-Y", "infiniband.bth.destqp == 1")
                .redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("CM: ConnectRequest", "CM: ConnectReply", "CM: ReadyToUse", "CM: DisconnectRequest",
                "CM: DisconnectReply");
    }

    @Test
    @DisplayName("Two deterministic runs write the same bytes (seeded comm IDs, PSNs and ports)")
    void deterministicRunsAreByteIdentical() throws IOException {
        byte[] first = Files.readAllBytes(emulatedRping());
        byte[] second = Files.readAllBytes(emulatedRping());
        assertThat(second).isEqualTo(first);
    }
}
