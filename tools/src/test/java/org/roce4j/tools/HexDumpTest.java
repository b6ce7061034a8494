package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** decode --verbose's dump of a payload or of a malformed frame. */
class HexDumpTest {
    @Test
    @DisplayName("hex dump: 16 bytes a line, a gap after 8, unprintable bytes as '.', at most the bytes asked for")
    void hexDump() {
        byte[] bytes = "Hello, RoCE!\n\u0000\u007f~ab".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);

        assertThat(HexDump.lines(bytes, 64)).containsExactly(
                "0000  48 65 6c 6c 6f 2c 20 52  6f 43 45 21 0a 00 7f 7e  Hello, RoCE!...~",
                "0010  61 62                                             ab");
        assertThat(HexDump.lines(bytes, 4)).containsExactly(
                "0000  48 65 6c 6c                                       Hell");
    }
}
