package org.roce4j.testkit;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.Direction;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.Transport;
import org.roce4j.wire.ladder.FrameClassifier;
import org.roce4j.wire.pcap.CapturedPacket;
import org.roce4j.wire.pcap.LinkType;

/**
 * The failure report's ladder marks a request as resent when its PSN is not after the highest its
 * stream (source, destination, destination QP) had sent: a go-back (IBTA 9.7.5.2) or a timeout's
 * retry (IBTA 9.7.6.1.3). A simpler rule than {@code roce4j analyze}'s, which lives in tools (that the
 * testkit must not depend on): it names no cause, and it does not know a READ's PSN range (IBTA
 * 9.4.4: n response PSNs), so a READ the requester resumes partway (rxe_req.c req_retry) is not
 * marked when no later request had been sent.
 */
final class ResentRequests implements FrameClassifier {
    private record Stream(InetAddress source, InetAddress destination, int destQp) {
    }

    private final RoceDecoder decoder = new RoceDecoder();
    private final Map<Stream, Integer> nextPsn = new HashMap<>();

    @Override
    public Optional<String> resent(long number, CapturedPacket packet) {
        if (!packet.linkType().equals(LinkType.ETHERNET)
                || !(decoder.decode(packet.data()) instanceof DecodeResult.Decoded decoded)) {
            return Optional.empty(); // a bad ICRC: its receiver drops it, and its PSN cannot be trusted
        }
        RocePacket roce = decoded.frame().packet();
        if (roce.opcode().transport() != Transport.RC || roce.opcode().operation().direction() != Direction.REQUEST) {
            return Optional.empty();
        }
        int psn = roce.bth().psn();
        Stream stream = new Stream(decoded.frame().ip().source(), decoded.frame().ip().destination(), roce.bth().destQp());
        Integer next = nextPsn.get(stream);
        if (next != null && Psn.isBefore(psn, next)) {
            return Optional.of("resent: its PSN is not after the highest this QP had sent");
        }
        nextPsn.put(stream, Psn.next(psn));
        return Optional.empty();
    }
}
