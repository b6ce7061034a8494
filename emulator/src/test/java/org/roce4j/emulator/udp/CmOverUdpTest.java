package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEvent;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.EventChannel;
import org.roce4j.cm.PortSpace;
import org.roce4j.emulator.EmulatedCm;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * The same CM over real UDP: two JVM-local UDP devices (127.0.0.2 and 127.0.0.3), each its own
 * rdma_cm host; the client resolves the server's address through its link, connects, the server
 * accepts, a SEND crosses, and both disconnect — CM MADs as RoCEv2 datagrams on port 4791.
 */
class CmOverUdpTest extends LoopbackPair {
    private static final Duration WAIT = Duration.ofSeconds(20);

    static CmEvent expect(EventChannel channel, CmEventType type) {
        CmEvent event = channel.getEvent(WAIT).orElseThrow(() -> new AssertionError("no event, expected " + type));
        assertThat(event.type()).as("%s status %d", event.type(), event.status()).isEqualTo(type);
        return event;
    }

    /** PD, CQ, buffer and QP on an id's device context. */
    record Verbs(Pd pd, Cq cq, MemorySegment memory, Mr mr, Qp qp) {
        static Verbs of(CmId id, Arena arena) {
            Context context = id.verbs().orElseThrow();
            Pd pd = context.allocPd();
            Cq cq = context.createCq(16);
            MemorySegment memory = arena.allocate(4096, 4096);
            Mr mr = pd.regMr(memory, EnumSet.of(AccessFlag.LOCAL_WRITE));
            Qp qp = id.createQp(pd, QpInitAttr.of(id.qpType(), cq, new QpCap(4, 4, 1, 1, 0)));
            return new Verbs(pd, cq, memory, mr, qp);
        }

        WorkCompletion pollOne() {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                var wcs = cq.poll(1);
                if (!wcs.isEmpty()) {
                    return wcs.getFirst();
                }
                Thread.onSpinWait();
            }
            throw new AssertionError("no completion");
        }
    }

    @Test
    @DisplayName("rdma_cm over the UDP link: resolve, connect with private data, accept, SEND, disconnect from the client")
    void connectSendDisconnectOverUdp() throws Exception {
        EventChannel server = EmulatedCm.of(a.rnic.rnic()).createEventChannel();
        EventChannel client = EmulatedCm.of(b.rnic.rnic()).createEventChannel();
        try (Arena arena = Arena.ofShared()) {
            CmId listener = server.createId(PortSpace.TCP);
            listener.bindAddr(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 7471));
            listener.listen(4);

            CmId clientId = client.createId(PortSpace.TCP);
            clientId.resolveAddr(null, new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 7471), WAIT);
            expect(client, CmEventType.ADDR_RESOLVED).ack();
            assertThat(clientId.localAddress().getAddress()).isEqualTo(InetAddress.getByName("127.0.0.3"));
            clientId.resolveRoute(WAIT);
            expect(client, CmEventType.ROUTE_RESOLVED).ack();
            Verbs c = Verbs.of(clientId, arena);
            clientId.connect(ConnParam.of("over udp".getBytes(StandardCharsets.US_ASCII)));

            CmEvent request = expect(server, CmEventType.CONNECT_REQUEST);
            CmId serverId = request.id();
            assertThat(new String(request.privateData(), 0, 8, StandardCharsets.US_ASCII)).isEqualTo("over udp");
            request.ack();
            Verbs s = Verbs.of(serverId, arena);
            s.qp().postRecv(RecvWr.of(1, s.mr(), 0, 64));
            serverId.accept(ConnParam.defaults());
            expect(client, CmEventType.ESTABLISHED).ack();
            expect(server, CmEventType.ESTABLISHED).ack();

            c.memory().asByteBuffer().put("hi".getBytes(StandardCharsets.US_ASCII));
            c.qp().postSend(SendWr.send(2, c.mr(), 0, 2));
            assertThat(c.pollOne().status()).isEqualTo(WcStatus.SUCCESS);
            WorkCompletion received = s.pollOne();
            assertThat(received.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(received.byteLen()).isEqualTo(2);

            clientId.disconnect();
            expect(server, CmEventType.DISCONNECTED).ack();
            serverId.disconnect();
            expect(client, CmEventType.DISCONNECTED).ack();
            expect(client, CmEventType.TIMEWAIT_EXIT).ack();
            expect(server, CmEventType.TIMEWAIT_EXIT).ack();
            clientId.destroyQp();
            serverId.destroyQp();
            clientId.close();
            serverId.close();
            listener.close();
        }
    }
}
