package org.roce4j.tools.analyze;

import org.roce4j.wire.Position;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RocePacket;

/**
 * One sender's unacknowledged traffic: a UD QP (keyed by its DETH source QP and address) or a UC
 * QP. No responses exist, so there is no latency and no retransmission, only messages, bytes,
 * goodput by send time and the PSN gaps a receiver would see (the sender numbers every packet).
 */
final class DatagramFlow {
    final String name;
    final GoodputSeries goodput = new GoodputSeries();
    long packets;
    long messages;
    long psnGaps;
    long missingPsns;
    private boolean started;
    private int nextPsn;

    DatagramFlow(String name) {
        this.name = name;
    }

    void packet(long nanos, RocePacket packet) {
        int psn = packet.bth().psn();
        packets++;
        if (started && psn != nextPsn && Psn.isAfter(psn, nextPsn)) {
            psnGaps++;
            missingPsns += Psn.distance(nextPsn, psn);
        }
        if (!started || !Psn.isBefore(psn, nextPsn)) {
            nextPsn = Psn.next(psn);
        }
        started = true;
        Position position = packet.opcode().position();
        if (position.endsMessage()) {
            messages++;
        }
        goodput.add(nanos, packet.payloadLength());
    }
}
