package org.roce4j.tools;

import static java.util.Locale.ROOT;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.Psn;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.mad.MadHeader;

/**
 * Which frames {@code roce4j decode} lists: by QP, by class of opcode, by PSN range. Every filter
 * given must match (and); several values of one filter are alternatives (or). A frame that carries
 * no BTH (ARP, TCP, a malformed frame) matches no filter. Without filters every frame is listed.
 */
final class DecodeFilter {
    /** Opcode classes, as {@code --class} names them. */
    enum OpcodeClass {
        /** Every SEND (RC, UC, UD, XRC; CM MADs too). */
        SEND,
        /** RDMA WRITE, with or without immediate. */
        WRITE,
        /** RDMA READ requests and READ responses. */
        READ,
        /** Compare&amp;Swap, Fetch&amp;Add and their Atomic Acknowledges. */
        ATOMIC,
        /** Acknowledge packets: ACK, NAK, RNR NAK. */
        ACK,
        /** Any packet whose AETH is a NAK or an RNR NAK (IBTA 9.7.5.2). */
        NAK,
        /** Congestion notification packets (RoCEv2 annex A17.9.3). */
        CNP,
        /** FLUSH (IBTA 1.5). */
        FLUSH,
        /** ATOMIC WRITE (IBTA 1.5). */
        ATOMIC_WRITE,
        /** Communication management MADs: UD SEND Only to QP 1 (IBTA 13.5.1). */
        CM;

        String optionName() {
            return name().toLowerCase(ROOT).replace('_', '-');
        }

        static OpcodeClass parse(String name) {
            for (OpcodeClass value : values()) {
                if (value.optionName().equals(name.strip().toLowerCase(ROOT))) {
                    return value;
                }
            }
            throw new IllegalArgumentException("no opcode class '" + name + "'; one of: "
                    + String.join(", ", java.util.Arrays.stream(values()).map(OpcodeClass::optionName).toList()));
        }

        boolean matches(RocePacket packet) {
            OperationKind kind = packet.opcode().kind();
            return switch (this) {
                case SEND -> kind == OperationKind.SEND;
                case WRITE -> kind == OperationKind.RDMA_WRITE;
                case READ -> kind == OperationKind.RDMA_READ_REQUEST || kind == OperationKind.RDMA_READ_RESPONSE;
                case ATOMIC -> kind == OperationKind.ATOMIC || kind == OperationKind.ATOMIC_ACKNOWLEDGE;
                case ACK -> kind == OperationKind.ACKNOWLEDGE;
                case NAK -> packet.header(Aeth.class).map(Aeth::syndrome)
                        .filter(s -> s instanceof AethSyndrome.Nak || s instanceof AethSyndrome.RnrNak).isPresent();
                case CNP -> kind == OperationKind.CONGESTION_NOTIFICATION;
                case FLUSH -> kind == OperationKind.FLUSH;
                case ATOMIC_WRITE -> kind == OperationKind.ATOMIC_WRITE;
                case CM -> packet.opcode() == Opcode.UD_SEND_ONLY && packet.bth().destQp() == MadHeader.GSI_QPN;
            };
        }
    }

    /** PSNs from {@code first} to {@code last}, both included, counting up modulo 2^24 (so 0xfffff0-0x10 wraps). */
    record PsnRange(int first, int last) {
        static PsnRange parse(String text) {
            String[] ends = text.strip().split("-", -1);
            if (ends.length > 2 || ends[0].isEmpty()) {
                throw new IllegalArgumentException("a PSN range is FIRST-LAST or one PSN (0x10-0x20, 16), not '" + text + "'");
            }
            int first = psn(ends[0]);
            return new PsnRange(first, ends.length == 2 ? psn(ends[1]) : first);
        }

        private static int psn(String text) {
            int value = new PingpongCommand.CNumber().convert(text);
            if (!Psn.isValid(value)) {
                throw new IllegalArgumentException("a PSN has 24 bits (0 to 0xffffff), not " + text);
            }
            return value;
        }

        boolean contains(int psn) {
            return Psn.distance(first, psn) <= Psn.distance(first, last);
        }

        @Override
        public String toString() {
            return first == last ? String.format(ROOT, "0x%06x", first) : String.format(ROOT, "0x%06x-0x%06x", first, last);
        }
    }

    private final Set<Integer> qps;
    private final Set<OpcodeClass> classes;
    private final List<PsnRange> psns;

    DecodeFilter(List<Integer> qps, List<OpcodeClass> classes, List<PsnRange> psns) {
        this.qps = new LinkedHashSet<>(qps);
        this.classes = classes.isEmpty() ? EnumSet.noneOf(OpcodeClass.class) : EnumSet.copyOf(classes);
        this.psns = List.copyOf(psns);
        for (int qp : qps) {
            if (!Psn.isValid(qp)) { // a QPN has 24 bits, as a PSN does
                throw new IllegalArgumentException(String.format(ROOT, "a QPN has 24 bits (0 to 0xffffff), not 0x%x", qp));
            }
        }
    }

    /** {@return whether any filter was given} */
    boolean any() {
        return !qps.isEmpty() || !classes.isEmpty() || !psns.isEmpty();
    }

    /** {@return whether a QP filter was given (it needs to know each frame's sender)} */
    boolean byQp() {
        return !qps.isEmpty();
    }

    /**
     * {@return whether to list a frame}
     *
     * @param packet   its transport packet, null when it has none
     * @param sourceQp the QP that sent it ({@code -1} when unknown)
     */
    boolean shows(RocePacket packet, int sourceQp) {
        if (!any()) {
            return true;
        }
        if (packet == null) {
            return false;
        }
        return (qps.isEmpty() || qps.contains(packet.bth().destQp()) || qps.contains(sourceQp))
                && (classes.isEmpty() || classes.stream().anyMatch(c -> c.matches(packet)))
                && (psns.isEmpty() || psns.stream().anyMatch(range -> range.contains(packet.bth().psn())));
    }

    /** {@return the filters as the options that would give them, e.g. {@code --qp 0x000011 --class write,ack}} */
    String describe() {
        List<String> parts = new ArrayList<>();
        qps.forEach(qp -> parts.add(String.format(ROOT, "--qp 0x%06x", qp)));
        if (!classes.isEmpty()) {
            parts.add("--class " + String.join(",", classes.stream().map(OpcodeClass::optionName).toList()));
        }
        psns.forEach(range -> parts.add("--psn " + range));
        return String.join(" ", parts);
    }
}
