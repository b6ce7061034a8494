package org.roce4j.emulator.fabric;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.roce4j.wire.Psn;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.Transport;

/**
 * A tap's memory of what each requester sent, so that a capture can say which request frames are
 * retransmissions — something Wireshark's InfiniBand dissector cannot tell. Fed every frame in the
 * order the RNICs sent it (before any fault plan), it calls an RC request a retransmission when its
 * PSN is before the next PSN that flow (source MAC, destination QP) had reached: the requester went
 * back (IBTA 9.7.4.1.3 go-back-N after a NAK or an ACK timeout, C9-180 RNR retries).
 *
 * <p>Not marked: a READ resumed from the middle of its response (its new PSN is past the first
 * one's, and the tap does not know how many PSNs the READ took); only the frame's own PSN is
 * looked at. Not thread-safe: each tap keeps its own under its lock.
 */
public final class RetransmissionMarks {

    /** The comment a retransmitted frame carries; the roce4j Wireshark profile colours it. */
    public static final String RETRANSMISSION = "retransmission";
    private static final List<String> MARK = List.of(RETRANSMISSION);

    private final PacketInfo packet = new PacketInfo();
    /** The next PSN each flow reached: (source MAC, destination QP) to PSN. */
    private final Map<Flow, Integer> next = new HashMap<>();

    private record Flow(long sourceMac, int destQp) {
    }

    /**
     * Notes one sent frame. {@return {@code ["retransmission"]} for an RC request the flow had sent
     * before, otherwise an empty list}
     *
     * @param frame the Ethernet frame as sent
     */
    public List<String> onSent(byte[] frame, int offset, int length) {
        if (!packet.parseFrame(frame, offset, length) || packet.opcode().transport() != Transport.RC
                || !packet.opcode().isRequest()) {
            return List.of();
        }
        Flow flow = new Flow(FrameSwitch.mac(frame, offset + 6), packet.destQp());
        int psn = packet.psn();
        Integer reached = next.get(flow);
        if (reached != null && Psn.isBefore(psn, reached)) {
            return MARK;
        }
        next.put(flow, Psn.next(psn));
        return List.of();
    }

    /** {@return the two lists as one: a frame's retransmission mark, then what the fault plan did to it} */
    public static List<String> join(List<String> marks, List<String> faults) {
        if (marks.isEmpty()) {
            return faults;
        }
        if (faults.isEmpty()) {
            return marks;
        }
        List<String> both = new java.util.ArrayList<>(marks);
        both.addAll(faults);
        return both;
    }
}
