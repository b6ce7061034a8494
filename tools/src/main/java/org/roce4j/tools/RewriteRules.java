package org.roce4j.tools;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.roce4j.verbs.NumberText;
import org.roce4j.wire.FrameText;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.Psn;

/**
 * What {@code roce4j replay --rewrite} changes in each RoCEv2 frame: the Ethernet and IP addresses, QP
 * numbers (the BTH's destination QP and a DETH's source QP that equal an old number) and PSNs (a 24-bit
 * modular shift, {@link Psn#add}). The lengths, checksums and the ICRC that follow from the change are
 * {@link FrameRewriter}'s business.
 *
 * <p>Written as {@code src-mac=..,dst-mac=..,src-ip=..,dst-ip=..,qpn=0xOLD:0xNEW,psn=+N}; every part is
 * optional, {@code qpn=} may be given more than once, numbers are decimal or {@code 0x} hex.
 */
record RewriteRules(Optional<MacAddress> sourceMac, Optional<MacAddress> destinationMac,
                    Optional<InetAddress> sourceIp, Optional<InetAddress> destinationIp,
                    Map<Integer, Integer> qpns, int psnDelta) {

    /** Changes nothing: the frames go out as captured (checksums and ICRC recomputed all the same). */
    static final RewriteRules NONE = new RewriteRules(Optional.empty(), Optional.empty(), Optional.empty(),
            Optional.empty(), Map.of(), 0);

    private static final Pattern IP_LITERAL = Pattern.compile("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

    RewriteRules {
        qpns = Map.copyOf(qpns);
        psnDelta = Psn.of(psnDelta); // a shift by -1 is a shift by 2^24 - 1
    }

    /**
     * Parses the {@code --rewrite} values, in order (a later part overrides an earlier one of the same name,
     * except {@code qpn=}, which adds a mapping).
     *
     * @throws IllegalArgumentException naming the part that is wrong
     */
    static RewriteRules parse(List<String> specs) {
        Optional<MacAddress> srcMac = Optional.empty();
        Optional<MacAddress> dstMac = Optional.empty();
        Optional<InetAddress> srcIp = Optional.empty();
        Optional<InetAddress> dstIp = Optional.empty();
        Map<Integer, Integer> qpns = new LinkedHashMap<>();
        int psn = 0;
        for (String spec : specs) {
            for (String part : spec.split(",")) {
                if (part.isBlank()) {
                    continue;
                }
                int equals = part.indexOf('=');
                if (equals < 0) {
                    throw new IllegalArgumentException("'" + part + "' is not NAME=VALUE");
                }
                String name = part.substring(0, equals).strip();
                String value = part.substring(equals + 1).strip();
                switch (name) {
                    case "src-mac" -> srcMac = Optional.of(mac(value));
                    case "dst-mac" -> dstMac = Optional.of(mac(value));
                    case "src-ip" -> srcIp = Optional.of(ip(value));
                    case "dst-ip" -> dstIp = Optional.of(ip(value));
                    case "qpn" -> {
                        String[] pair = value.split(":");
                        if (pair.length != 2) {
                            throw new IllegalArgumentException("qpn=" + value + ": expected qpn=OLD:NEW, e.g. qpn=0x11:0x12");
                        }
                        qpns.put(qpn(pair[0]), qpn(pair[1]));
                    }
                    case "psn" -> psn = psnShift(value);
                    default -> throw new IllegalArgumentException("unknown rewrite '" + name
                            + "' (one of src-mac, dst-mac, src-ip, dst-ip, qpn, psn)");
                }
            }
        }
        return new RewriteRules(srcMac, dstMac, srcIp, dstIp, qpns, psn);
    }

    /** {@return the QP number {@code qpn} becomes} */
    int qpn(int qpn) {
        return qpns.getOrDefault(qpn, qpn);
    }

    /** {@return the PSN {@code psn} becomes} */
    int psn(int psn) {
        return Psn.add(psn, psnDelta);
    }

    /** The rules as {@code parse} reads them, numbers in hex (NumberText). */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        sourceMac.ifPresent(mac -> text.append(",src-mac=").append(mac));
        destinationMac.ifPresent(mac -> text.append(",dst-mac=").append(mac));
        sourceIp.ifPresent(ip -> text.append(",src-ip=").append(FrameText.address(ip)));
        destinationIp.ifPresent(ip -> text.append(",dst-ip=").append(FrameText.address(ip)));
        qpns.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> text.append(",qpn=")
                .append(NumberText.qpn(e.getKey())).append(':').append(NumberText.qpn(e.getValue())));
        if (psnDelta != 0) {
            text.append(",psn=+").append(NumberText.psn(psnDelta));
        }
        return text.isEmpty() ? "none" : text.substring(1);
    }

    private static MacAddress mac(String text) {
        return MacAddress.parse(text);
    }

    /** An address literal only: a host name would mean a DNS look-up in the middle of a replay. */
    private static InetAddress ip(String text) {
        if (!IP_LITERAL.matcher(text).matches()) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 or IPv6 address");
        }
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 or IPv6 address");
        }
    }

    private static int qpn(String text) {
        long value = number(text, "QP number");
        if (value < 0 || value > Psn.MASK) {
            throw new IllegalArgumentException("QP number " + text + " is not 24 bits");
        }
        return (int) value;
    }

    /** {@code +N}, {@code -N} or {@code N}: a shift of every PSN, modulo 2^24. */
    private static int psnShift(String text) {
        boolean negative = text.startsWith("-");
        String digits = text.startsWith("+") || negative ? text.substring(1) : text;
        long value = number(digits, "PSN shift");
        if (value > Psn.MASK) {
            throw new IllegalArgumentException("PSN shift " + text + " is more than 24 bits");
        }
        return (int) (negative ? -value : value);
    }

    private static long number(String text, String what) {
        try {
            String t = text.strip().toLowerCase(java.util.Locale.ROOT);
            return t.startsWith("0x") ? Long.parseLong(t.substring(2), 16) : Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a number (decimal or 0x hex)");
        }
    }
}
