package org.roce4j.ibverbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * The librdmacm binding on a real device (rxe0 in a Soft-RoCE VM: ibverbs/run-in-vm): a client and a
 * server id on two channels of one process connect over rxe0's IPv4 address with private data both
 * ways, the QPs librdmacm made carry a SEND, and both sides see the disconnect. The CM behaviours
 * themselves are conformance's; this checks the binding (layouts read, events copied, QP wrapped).
 */
@Tag("device")
class RdmacmOnRxeTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** rxe0's IPv4 address: the last four bytes of its IPv4-mapped GID (index 1, as RxeSmokeTest uses). */
    private static InetAddress deviceAddress() throws Exception {
        try (Context context = RxeSmokeTest.device().open()) {
            byte[] gid = context.queryGid(1, 1).raw();
            return InetAddress.getByAddress(Arrays.copyOfRange(gid, 12, 16));
        }
    }

    private static CmEvent expect(EventChannel channel, CmEventType type) {
        CmEvent event = channel.getEvent(WAIT).orElseThrow(() -> new AssertionError("no event; wanted " + type));
        assertThat(event.type()).as("event (status %d)", event.status()).isEqualTo(type);
        return event;
    }

    @Test
    void aClientAndAServerConnectWithPrivateDataSendAndDisconnect() throws Exception {
        InetAddress ip = deviceAddress();
        IbverbsProvider provider = new IbverbsProvider();
        assertThat(provider.whyNoConnectionManager()).isEmpty();
        try (Arena arena = Arena.ofShared();
             EventChannel server = provider.createEventChannel();
             EventChannel client = provider.createEventChannel()) {
            assertThat(server.pollEvent()).as("nothing happened yet: EAGAIN is no event").isEmpty();
            CmId listener = server.createId(PortSpace.TCP, "the listener");
            listener.bindAddr(new InetSocketAddress(ip, 0));
            listener.listen(4);
            InetSocketAddress listening = listener.localAddress();
            assertThat(listening.getAddress()).isEqualTo(ip);
            assertThat(listening.getPort()).as("an ephemeral port").isPositive();

            CmId active = client.createId(PortSpace.TCP);
            assertThat(active.peerAddress()).isNull();
            active.resolveAddr(null, listening, Duration.ofSeconds(2));
            expect(client, CmEventType.ADDR_RESOLVED).ack();
            assertThat(active.peerAddress()).isEqualTo(listening);
            active.resolveRoute(Duration.ofSeconds(2));
            expect(client, CmEventType.ROUTE_RESOLVED).ack();
            Context verbs = active.verbs().orElseThrow();
            assertThat(active.portNum()).isEqualTo(1);
            Pd clientPd = verbs.allocPd();
            Cq clientCq = verbs.createCq(16);
            Qp clientQp = active.createQp(clientPd, QpInitAttr.of(QpType.RC, clientCq, QpCap.of(8, 8)));
            assertThat(clientQp.state()).as("rdma_create_qp moves an RC QP to INIT").isEqualTo(QpState.INIT);
            assertThat(active.qp()).contains(clientQp);
            active.connect(ConnParam.of("hello".getBytes(StandardCharsets.US_ASCII)));

            CmEvent request = expect(server, CmEventType.CONNECT_REQUEST);
            assertThat(request.listenId()).contains(listener);
            CmId passive = request.id();
            assertThat(passive.context()).as("the listener's context, as librdmacm copies it").isEqualTo("the listener");
            assertThat(passive.verbs()).as("one context object per librdmacm context").containsSame(verbs);
            assertThat(new String(request.privateData(), 0, 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
            VerbsException busy = catchThrowableOfType(VerbsException.class, listener::close);
            assertThat(busy.errno()).as("the CONNECT_REQUEST counts on the listener until acked").isEqualTo(Errno.EBUSY);
            request.ack();

            Pd serverPd = verbs.allocPd();
            Cq serverCq = verbs.createCq(16);
            Qp serverQp = passive.createQp(serverPd, QpInitAttr.of(QpType.RC, serverCq, QpCap.of(8, 8)));
            MemorySegment inbox = arena.allocate(4096, 4096);
            MemorySegment outbox = arena.allocate(4096, 4096);
            Mr inboxMr = serverPd.regMr(inbox, EnumSet.of(AccessFlag.LOCAL_WRITE));
            Mr outboxMr = clientPd.regMr(outbox, EnumSet.of(AccessFlag.LOCAL_WRITE));
            serverQp.postRecv(RecvWr.of(7, inboxMr, 0, 4096));
            passive.accept(ConnParam.of("world".getBytes(StandardCharsets.US_ASCII)));

            try (CmEvent established = expect(client, CmEventType.ESTABLISHED)) {
                assertThat(new String(established.privateData(), 0, 5, StandardCharsets.US_ASCII)).isEqualTo("world");
            }
            expect(server, CmEventType.ESTABLISHED).ack();
            assertThat(clientQp.state()).isEqualTo(QpState.RTS);

            outbox.setString(0, "ping over rdma_cm");
            clientQp.postSend(SendWr.send(8, outboxMr, 0, 64));
            WorkCompletion received = poll(serverCq);
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(inbox.getString(0)).isEqualTo("ping over rdma_cm");
            assertThat(poll(clientCq).status()).isEqualTo(WcStatus.SUCCESS);

            // The DREQ reaches the server at once; the client's DISCONNECTED waits for the DREP, which
            // the server's own rdma_disconnect sends (cma.c: IB_CM_DREP_RECEIVED → DISCONNECTED).
            active.disconnect();
            expect(server, CmEventType.DISCONNECTED).ack();
            passive.disconnect();
            expect(client, CmEventType.DISCONNECTED).ack();

            verbs.close();   // librdmacm's: closing it leaves it open for the other ids
            active.destroyQp();
            assertThat(active.qp()).isEmpty();
            passive.destroyQp();
            inboxMr.close();
            outboxMr.close();
            clientCq.close();
            serverCq.close();
            clientPd.close();
            serverPd.close();
            active.close();
            passive.close();
            listener.close();
        }
    }

    private static WorkCompletion poll(Cq cq) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<WorkCompletion> wc = cq.poll();
            if (wc.isPresent()) {
                return wc.get();
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion");
    }
}
