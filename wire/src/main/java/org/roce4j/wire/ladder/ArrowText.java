package org.roce4j.wire.ladder;

import static java.util.Locale.ROOT;

import java.util.List;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.FrameText;
import org.roce4j.wire.Reth;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;

/** The words on an arrow: a short label, and the detail shown on hover. */
final class ArrowText {
    private ArrowText() {
    }

    /**
     * Operation, PSN and lengths, e.g. {@code RDMA Write First PSN 0x000010 RETH 5000 B, 1024 B} or
     * {@code Acknowledge PSN 0x000014 NAK PSN Sequence Error}; a CM MAD by its message ({@code CM REQ}).
     */
    static String label(RoceFrame frame) {
        RocePacket packet = frame.packet();
        String cm = FrameText.cmLine(frame).map(line -> line.split(" ", 3)).map(words -> words[0] + " " + words[1])
                .orElse(null);
        StringBuilder label = new StringBuilder(cm != null ? cm : packet.opcode().operation().displayName());
        label.append(String.format(ROOT, " PSN 0x%06x", packet.bth().psn()));
        packet.header(Reth.class).ifPresent(reth -> label.append(" RETH ").append(reth.dmaLengthUnsigned()).append(" B"));
        packet.header(Aeth.class).map(Aeth::syndrome).ifPresent(syndrome -> label.append(syndromeText(syndrome)));
        if (packet.opcode().carriesPayload() && cm == null) {
            label.append(", ").append(packet.payloadLength()).append(" B");
        }
        return label.toString();
    }

    /** An ACK's syndrome says nothing new; a NAK's code and an RNR NAK's wait do (IBTA tables 44 and 45). */
    private static String syndromeText(AethSyndrome syndrome) {
        return switch (syndrome) {
            case AethSyndrome.Nak nak -> " NAK " + (nak.code() == null ? "reserved " + nak.value() : nak.code().description());
            case AethSyndrome.RnrNak rnr -> String.format(ROOT, " RNR NAK %.2f ms", rnr.delayNanos() / 1e6);
            case AethSyndrome.Reserved reserved -> String.format(ROOT, " syndrome 0x%02x", reserved.syndrome());
            case AethSyndrome.Ack ack -> "";
        };
    }

    /** Everything about the frame, one fact per line: what roce4j decode prints, and why the arrow looks as it does. */
    static String detail(long number, long nanos, RoceFrame frame, Endpoint from, String icrc, List<String> comments,
                         String resent) {
        StringBuilder detail = new StringBuilder()
                .append("frame ").append(number).append(", ").append(FrameText.seconds(nanos)).append(" s\n")
                .append(FrameText.summary(frame)).append('\n');
        FrameText.cmLine(frame).ifPresent(line -> detail.append(line).append('\n'));
        detail.append("from ").append(from.name()).append(" to ").append(QpPeers.destination(frame).name()).append('\n');
        detail.append("ICRC ").append(icrc);
        comments.forEach(comment -> detail.append("\ncomment: ").append(comment));
        if (resent != null) {
            detail.append('\n').append(resent);
        }
        return detail.toString();
    }
}
