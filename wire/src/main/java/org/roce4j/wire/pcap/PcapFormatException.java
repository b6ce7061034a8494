package org.roce4j.wire.pcap;

import java.io.IOException;
import java.io.Serial;
import java.util.Objects;

/**
 * Input that is not a readable capture: classic pcap ({@link PcapReader}) or pcapng
 * ({@link PcapngReader}). It says what was wrong ({@link #problem()}) and where: {@link #offset()} is
 * the byte offset of the start of the structure at fault, the global header (always 0), the record or
 * the pcapng block; the message adds the details.
 */
public final class PcapFormatException extends IOException {

    @Serial private static final long serialVersionUID = 1L;

    /** What was wrong with the input. */
    public enum Problem {
        /** The first four bytes are no pcap magic number (nor pcapng's). */
        UNKNOWN_MAGIC,
        /** {@link PcapReader} was given pcapng (Section Header Block type 0x0A0D0D0A): use {@link CaptureReader}. */
        PCAPNG,
        /** The global header announces a version other than 2.3 or 2.4; a pcapng section, a major version other than 1. */
        UNSUPPORTED_VERSION,
        /**
         * The file ends inside the 24-byte global header ("File Header" in draft-ietf-opsawg-pcap
         * §4); an empty file included.
         */
        TRUNCATED_GLOBAL_HEADER,
        /** The file ends inside a 16-byte record header. */
        TRUNCATED_RECORD_HEADER,
        /** The file ends before the captured bytes a record header announces. */
        TRUNCATED_RECORD_DATA,
        /**
         * A record claims more captured bytes than the larger of the snaplen and libpcap's
         * maximum (262144), or than 256 MiB.
         */
        CAPTURED_LENGTH_TOO_LARGE,
        /** A record claims an original length of 2 GiB or more. */
        ORIGINAL_LENGTH_TOO_LARGE,
        /** pcapng: the file ends inside a block. */
        TRUNCATED_BLOCK,
        /**
         * pcapng: a block's total length is under 12, not a multiple of 4, over 256 MiB, or not the same at
         * its end as at its start.
         */
        BAD_BLOCK_LENGTH,
        /** pcapng: a Section Header Block's byte-order magic is 0x1A2B3C4D in neither byte order. */
        UNKNOWN_BYTE_ORDER,
        /** pcapng: a packet block names an interface that no Interface Description Block of its section described. */
        UNKNOWN_INTERFACE,
        /** pcapng: a block's fields do not fit in it (captured bytes or an option running past its end, an if_tsresol beyond what a timestamp can hold). */
        BAD_BLOCK_CONTENT,
        /** pcapng: a timestamp before 1970 or after 2262 once its interface's resolution and offset are applied. */
        TIMESTAMP_OUT_OF_RANGE
    }

    /** What was wrong. */
    private final Problem problem;

    /** Where the global header or the record at fault starts. */
    private final long offset;

    PcapFormatException(Problem problem, long offset, String detail) {
        super("at byte offset " + offset + ": " + detail);
        this.problem = Objects.requireNonNull(problem);
        this.offset = offset;
    }

    /** {@return what was wrong} */
    public Problem problem() {
        return problem;
    }

    /** {@return the byte offset of the global header (0) or of the record at fault} */
    public long offset() {
        return offset;
    }
}
