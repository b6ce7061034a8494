package org.roce4j.wire.pcap;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Opening a capture file for a reader: the file is closed again when the reader cannot be made. */
final class CaptureFiles {

    /** A reader's constructor from a stream. */
    @FunctionalInterface
    interface Reader<T> {
        T from(InputStream in) throws IOException;
    }

    private CaptureFiles() {
    }

    static <T> T open(Path file, Reader<T> reader) throws IOException {
        InputStream in = Files.newInputStream(file);
        try {
            return reader.from(in);
        } catch (IOException | RuntimeException e) {
            try {
                in.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
