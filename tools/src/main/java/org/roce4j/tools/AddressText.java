package org.roce4j.tools;

import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * IP addresses as people and tshark write them: IPv4 dotted quads, IPv6 in the canonical form of
 * RFC 5952 (lower case, no leading zeros, the longest run of two or more zero groups as "::",
 * IPv4-mapped addresses as {@code ::ffff:192.0.2.1}). {@link InetAddress#getHostAddress()} does
 * none of the IPv6 part.
 */
final class AddressText {
    private static final int GROUPS = 8;

    private AddressText() {}

    static String of(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address.getHostAddress();
        }
        byte[] bytes = address.getAddress();
        if (isIpv4Mapped(bytes)) { // RFC 5952 §5
            return "::ffff:" + (bytes[12] & 0xFF) + "." + (bytes[13] & 0xFF) + "." + (bytes[14] & 0xFF) + "." + (bytes[15] & 0xFF);
        }
        int[] groups = new int[GROUPS];
        for (int i = 0; i < GROUPS; i++) {
            groups[i] = (bytes[2 * i] & 0xFF) << 8 | bytes[2 * i + 1] & 0xFF;
        }
        // RFC 5952 §4.2: shorten the longest run of zero groups (the first if tied), never just one.
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < GROUPS; ) {
            int j = i;
            while (j < GROUPS && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = Math.max(j, i + 1);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < GROUPS; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }

    private static boolean isIpv4Mapped(byte[] bytes) {
        for (int i = 0; i < 10; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return bytes[10] == (byte) 0xFF && bytes[11] == (byte) 0xFF;
    }
}
