package org.roce4j.tools;

import static java.lang.String.format;
import static java.util.Locale.ROOT;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.roce4j.verbs.NumberText;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.FrameText;
import org.roce4j.wire.RoceFrame;

/**
 * {@code roce4j capture}'s running account per QP: for every destination (IP address and BTH destination
 * QP, the only QP a BTH names) the frames and bytes sent to it, how many had a bad ICRC, and the NAKs and
 * RNR NAKs it received (an AETH with a NAK syndrome, IBTA §9.7.5.2.6 / table 45, is addressed to the
 * requester's QP). Frames that do not parse as RoCEv2 are counted apart.
 */
final class QpTraffic {
    /** One destination QP's counts. */
    record Counts(long frames, long bytes, long badIcrc, long naks, long rnrNaks) {
        Counts add(long frameBytes, boolean bad, AethSyndrome syndrome) {
            return new Counts(frames + 1, bytes + frameBytes, badIcrc + (bad ? 1 : 0),
                    naks + (syndrome instanceof AethSyndrome.Nak ? 1 : 0),
                    rnrNaks + (syndrome instanceof AethSyndrome.RnrNak ? 1 : 0));
        }
    }

    /** A destination: the IP address and the QP number in the BTH. */
    record Destination(InetAddress address, int qpn) {}

    private static final Counts NONE = new Counts(0, 0, 0, 0, 0);
    private final Map<Destination, Counts> perQp = new LinkedHashMap<>();
    private long otherFrames;

    /** Counts one captured frame of {@code length} bytes on the wire, as the decoder saw it. */
    void count(int length, DecodeResult result) {
        RoceFrame frame = switch (result) {
            case DecodeResult.Decoded decoded -> decoded.frame();
            case DecodeResult.Dropped dropped -> dropped.parsed().orElse(null);
        };
        if (frame == null) {
            otherFrames++;
            return;
        }
        AethSyndrome syndrome = frame.packet().header(Aeth.class).map(Aeth::syndrome).orElse(null);
        perQp.merge(new Destination(frame.ip().destination(), frame.packet().bth().destQp()),
                NONE.add(length, result instanceof DecodeResult.Dropped, syndrome),
                (old, one) -> old.add(length, result instanceof DecodeResult.Dropped, syndrome));
    }

    /** {@return the counts of one destination QP, zero when nothing was sent to it} */
    Counts of(InetAddress address, int qpn) {
        return perQp.getOrDefault(new Destination(address, qpn), NONE);
    }

    /** {@return the frames that were not RoCEv2 frames wire could parse} */
    long otherFrames() {
        return otherFrames;
    }

    /** Prints one line per destination QP (by address, then QP number), then the other frames, under {@code heading}. */
    void print(PrintWriter out, String heading) {
        out.println(heading);
        perQp.entrySet().stream()
                .sorted(Comparator.comparing((Map.Entry<Destination, Counts> e) -> e.getKey().address().getHostAddress())
                        .thenComparingInt(e -> e.getKey().qpn()))
                .forEach(e -> out.println(line(e.getKey(), e.getValue())));
        if (perQp.isEmpty()) {
            out.println(FramePrinter.INDENT + "no RoCE frames");
        }
        if (otherFrames > 0) {
            out.println(FramePrinter.INDENT + "other frames: " + otherFrames);
        }
    }

    static String line(Destination destination, Counts counts) {
        return FramePrinter.INDENT + format(ROOT, "%s QP %s: %d frames, %d bytes, %d bad ICRC, %d NAKs, %d RNR NAKs",
                FrameText.address(destination.address()), NumberText.qpn(destination.qpn()), counts.frames(), counts.bytes(),
                counts.badIcrc(), counts.naks(), counts.rnrNaks());
    }
}
