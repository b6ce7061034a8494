package org.roce4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WorkCompletion;

/**
 * What both sides of the UD service share: a UD QP in RTS with a ring of receive buffers, each
 * {@value #GRH_BYTES} bytes of GRH plus a datagram, and address handles made from the GRH of what
 * arrived, as {@code ibv_create_ah_from_wc} does.
 */
final class UdPeer {
    /** The Q_Key both sides use (ibv_ud_pingpong's). */
    static final int QKEY = 0x11111111;
    /** The Global Routing Header at the head of every UD receive buffer. */
    static final int GRH_BYTES = 40;
    static final ValueLayout.OfLong ID = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    final Endpoint endpoint;
    final Qp qp;
    private final Cq sendCq;
    final int datagramBytes;
    private final int receives;
    private final Mr receiveBuffers;
    private final Mr sendBuffer;
    private final RecvWr receive = new RecvWr();
    private final SendWr send = new SendWr();
    private final Map<Gid, Ah> handles = new HashMap<>();

    UdPeer(Endpoint endpoint, int receives, int datagramBytes) {
        this.endpoint = endpoint;
        this.receives = receives;
        this.datagramBytes = datagramBytes;
        // Sends complete on a CQ of their own, so that waiting for one never takes a receive.
        this.sendCq = endpoint.keep(endpoint.context().createCq(receives));
        this.qp = endpoint.keep(endpoint.pd().createQp(QpInitAttr.of(QpType.UD, endpoint.cq(), QpCap.of(receives, receives))
                .withCqs(sendCq, endpoint.cq())));
        // RESET -> INIT (port, P_Key index, Q_Key) -> RTR -> RTS (first PSN): the library's bring-up.
        // RcConnection spells the steps out once, for the reader.
        QpBringUp.pingpong().withPortNum(Endpoint.PORT).withSgidIndex(Endpoint.GID_INDEX).withQkey(QKEY).activate(qp, 0);
        this.receiveBuffers = endpoint.register((long) receives * slotBytes(), EnumSet.of(AccessFlag.LOCAL_WRITE));
        this.sendBuffer = endpoint.register(datagramBytes, EnumSet.of(AccessFlag.LOCAL_WRITE));
        for (int i = 0; i < receives; i++) {
            repost(i);
        }
    }

    private int slotBytes() {
        return GRH_BYTES + datagramBytes;
    }

    /** Posts receive buffer {@code slot} again (its wr_id is the slot). */
    void repost(int slot) {
        qp.postRecv(receive.reset().wrId(slot).sge(receiveBuffers, (long) slot * slotBytes(), slotBytes()));
    }

    /** The datagram of a receive completion, without its GRH. */
    MemorySegment datagram(WorkCompletion wc) {
        long at = wc.wrId() * slotBytes();
        return receiveBuffers.segment().asSlice(at + GRH_BYTES, wc.byteLen() - GRH_BYTES);
    }

    /**
     * The sender's GID from the GRH, as rdma-core's {@code ibv_init_ah_from_wc} reads it on RoCEv2:
     * over IPv4 the GRH's last 20 bytes hold the IPv4 header (source address at byte 32); over IPv6
     * the GRH is the IPv6 header (source GID at bytes 8 to 24).
     */
    Gid sender(WorkCompletion wc) {
        MemorySegment grh = receiveBuffers.segment().asSlice(wc.wrId() * slotBytes(), GRH_BYTES);
        byte[] bytes = grh.toArray(ValueLayout.JAVA_BYTE);
        if ((bytes[20] & 0xF0) == 0x40) {
            try {
                return Gid.of(java.net.InetAddress.getByAddress(java.util.Arrays.copyOfRange(bytes, 32, 36)));
            } catch (java.net.UnknownHostException impossible) {
                throw new AssertionError(impossible);
            }
        }
        return Gid.of(java.util.Arrays.copyOfRange(bytes, 8, 24));
    }

    /** An address handle to {@code gid}, made once per peer. */
    Ah handleTo(Gid gid) {
        return handles.computeIfAbsent(gid, g -> endpoint.keep(endpoint.pd().createAh(AhAttr.of(g, Endpoint.GID_INDEX, Endpoint.PORT))));
    }

    /** Sends a datagram of an id and a payload to a QP behind an address handle. */
    void send(long wrId, Ah to, int qpn, long id, byte[] payload) {
        MemorySegment out = sendBuffer.segment();
        out.set(ID, 0, id);
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, out, 8, payload.length);
        qp.postSend(send.reset().wrId(wrId).opcode(org.roce4j.verbs.WrOpcode.SEND).signaled(true)
                .sge(sendBuffer, 0, 8 + payload.length).ud(to, qpn, QKEY));
        Polling.next(sendCq); // the send's completion: the buffer may be reused
    }

    int receives() {
        return receives;
    }
}
