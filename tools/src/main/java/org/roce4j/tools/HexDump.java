package org.roce4j.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Bytes as the lines of a classic hex dump, like tshark's {@code -x}: an offset, sixteen bytes
 * in hex (a gap after the eighth), then the same bytes as ASCII with '.' for anything unprintable.
 */
final class HexDump {
    static final int BYTES_PER_LINE = 16;

    private HexDump() {}

    /** Dumps {@code bytes[0 .. min(length, bytes.length))}. */
    static List<String> lines(byte[] bytes, int length) {
        int end = Math.min(length, bytes.length);
        List<String> lines = new ArrayList<>();
        for (int start = 0; start < end; start += BYTES_PER_LINE) {
            StringBuilder hex = new StringBuilder();
            StringBuilder ascii = new StringBuilder();
            for (int i = start; i < start + BYTES_PER_LINE; i++) {
                if (i == start + BYTES_PER_LINE / 2) {
                    hex.append(' ');
                }
                if (i < end) {
                    int b = bytes[i] & 0xFF;
                    hex.append(Character.forDigit(b >>> 4, 16)).append(Character.forDigit(b & 0xF, 16)).append(' ');
                    ascii.append(b >= 0x20 && b < 0x7F ? (char) b : '.');
                } else {
                    hex.append("   ");
                }
            }
            lines.add(String.format(Locale.ROOT, "%04x  %s %s", start, hex, ascii));
        }
        return lines;
    }
}
