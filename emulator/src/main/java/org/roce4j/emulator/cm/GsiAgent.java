package org.roce4j.emulator.cm;

import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.node.GsiReceiver;
import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.verbs.Gid;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.PacketWriter;
import org.roce4j.wire.mad.MadHeader;

/**
 * QP 1 of a node, the General Services Interface (IBTA 13.5.1), as far as connection management
 * needs it: it receives MADs — a UD SEND Only of 256 bytes, P_Key 0xFFFF, Q_Key 0x80010000 —
 * and hands them to the {@link MadHandler}; it sends MADs as rxe sends them from QP 1 (seen in
 * {@code rxe_rping_cm.pcap}): UD SEND Only to QP 1 with AckReq set, DETH Q_Key 0x80010000 and
 * source QP 1, the PSN counting up per MAD sent, UDP source port rxe's hash of QPN 1 (55410).
 * Every MAD is a frame on the fabric: the pcap tap records it and fault rules reach it.
 */
final class GsiAgent implements GsiReceiver {
    static final int MAD_SIZE = MadHeader.MAD_SIZE;
    private static final int GSI_QKEY = MadHeader.GSI_QKEY;
    private static final int DEFAULT_PKEY = MadHeader.DEFAULT_PKEY;

    /** What a checked MAD is handed to. */
    interface MadHandler {
        /**
         * @param mad         the MAD's 256 bytes (the handler's to keep)
         * @param source      the GID it came from (the IP source address)
         * @param destination our GID it was sent to
         * @param nowNanos    the fabric's time
         */
        void onMad(byte[] mad, Gid source, Gid destination, long nowNanos);
    }

    private final Rnic rnic;
    private final int sourcePort = Rnic.sourcePortOf(MadHeader.GSI_QPN);
    private MadHandler handler;
    /** QP 1's send PSN: rxe's GSI QP counts it up by one per MAD (0, 1, 2, … in the reference capture). */
    private int psn;

    GsiAgent(Rnic rnic) {
        this.rnic = rnic;
    }

    void handler(MadHandler madHandler) {
        this.handler = madHandler;
    }

    /**
     * rxe_recv.c {@code check_keys} for QP 1: the Q_Key must be GSI_QKEY; rxe's {@code check_type_state}
     * lets only UD opcodes reach a GSI QP; the MAD layer takes 256-byte MADs only.
     */
    @Override
    public void receive(PacketInfo packet, long nowNanos) {
        if (packet.opcode() != Opcode.UD_SEND_ONLY || packet.payloadLength() < MAD_SIZE) {
            rnic.count(RnicCounter.DROPPED_BAD_MAD);
            return;
        }
        if (packet.pkey() != DEFAULT_PKEY) {
            rnic.count(RnicCounter.DROPPED_BAD_PKEY);
            return;
        }
        if (packet.dethQkey() != GSI_QKEY) {
            rnic.count(RnicCounter.DROPPED_QKEY_VIOLATION);
            return;
        }
        rnic.count(RnicCounter.MADS_RECEIVED);
        if (handler == null) {
            return;
        }
        byte[] mad = new byte[MAD_SIZE];
        System.arraycopy(packet.buffer(), packet.payloadOffset(), mad, 0, MAD_SIZE);
        handler.onMad(mad, gidAt(packet, packet.ipSourceOffset()), gidAt(packet, packet.ipDestinationOffset()), nowNanos);
    }

    /** Sends one MAD along {@code path} to the peer's QP 1. */
    void send(NetworkPath path, byte[] mad) {
        PacketWriter frame = rnic.beginFrame(path, sourcePort).bth(Opcode.UD_SEND_ONLY, MadHeader.GSI_QPN, psn)
                .pkey(DEFAULT_PKEY).ackReq(true).deth(GSI_QKEY, MadHeader.GSI_QPN).payload(mad, 0, MAD_SIZE);
        psn = (psn + 1) & 0xFFFFFF;
        rnic.count(RnicCounter.MADS_SENT);
        rnic.transmit(frame.finish(MAD_SIZE));
    }

    /** The GID of an IP address in the packet: IPv4 as {@code ::ffff:a.b.c.d}, as RoCEv2 GIDs hold it. */
    static Gid gidAt(PacketInfo packet, int offset) {
        byte[] raw = new byte[16];
        if (packet.ipVersion() == 4) {
            raw[10] = (byte) 0xFF;
            raw[11] = (byte) 0xFF;
            System.arraycopy(packet.buffer(), offset, raw, 12, 4);
        } else {
            System.arraycopy(packet.buffer(), offset, raw, 0, 16);
        }
        return Gid.of(raw);
    }
}
