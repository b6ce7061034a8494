package org.roce4j.wire.pcap;

import static org.roce4j.wire.pcap.PcapFormatException.Problem.BAD_BLOCK_CONTENT;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.BAD_BLOCK_LENGTH;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.TIMESTAMP_OUT_OF_RANGE;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.TRUNCATED_BLOCK;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.UNKNOWN_BYTE_ORDER;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.UNKNOWN_INTERFACE;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.UNKNOWN_MAGIC;
import static org.roce4j.wire.pcap.PcapFormatException.Problem.UNSUPPORTED_VERSION;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a pcapng file (draft-ietf-opsawg-pcapng) as dumpcap, tshark and editcap write it: any number of
 * sections, each in its own byte order, with any number of interfaces of any link type and timestamp
 * resolution (if_tsresol, decimal or binary; if_tsoffset); Enhanced, Simple and obsolete Packet Blocks, with
 * their comments. Blocks of other types (name resolution, statistics, secrets, custom) are skipped.
 *
 * <p>As {@link PcapReader}: anything wrong, a file cut inside its last block included, is a
 * {@link PcapFormatException} naming the block's offset, never a clean end; every later {@link #read()}
 * throws it again. Not thread-safe.
 */
public final class PcapngReader implements AutoCloseable {

    /** Refuse to read a block longer than this, whatever the file claims. */
    static final int MAX_BLOCK_LENGTH = PcapReader.MAX_CAPTURED_LENGTH + 64 * 1024;

    private final InputStream in;
    private final byte[] blockHeader = new byte[Pcapng.BLOCK_HEADER + 4];
    private final List<Interface> interfaces = new ArrayList<>();
    private ByteOrder order;
    private long position;
    private long blockStart;
    private PcapFormatException failure;

    /** What an Interface Description Block said; {@code tsresol} as the raw if_tsresol byte. */
    private record Interface(LinkType linkType, long snaplen, int tsresol, long tsoffsetSeconds) {
    }

    /**
     * Reads the first Section Header Block from {@code in}. Closing the reader closes {@code in}.
     *
     * @param in the capture, positioned at its first byte
     * @throws IOException if {@code in} fails
     * @throws PcapFormatException if {@code in} does not start with a pcapng Section Header Block
     */
    public PcapngReader(InputStream in) throws IOException {
        this.in = new BufferedInputStream(Objects.requireNonNull(in, "in"));
        int read = this.in.readNBytes(blockHeader, 0, 4);
        if (read < 4 || ByteBuffer.wrap(blockHeader).getInt(0) != Pcapng.SECTION_HEADER) {
            throw new PcapFormatException(UNKNOWN_MAGIC, 0, "not pcapng: the file does not start with a Section"
                    + " Header Block (0x0A0D0D0A)");
        }
        position = 4;
        readSectionHeader();
    }

    /**
     * Reads the next packet, skipping blocks that hold none.
     *
     * @return the packet, or empty at a clean end of file (right after a whole block)
     * @throws PcapFormatException if the file is not well-formed from here on; every later call throws it again
     * @throws IOException if the stream fails or the reader is closed
     */
    public Optional<CapturedPacket> read() throws IOException {
        if (failure != null) {
            throw failure;
        }
        try {
            while (true) {
                blockStart = position;
                int read = in.readNBytes(blockHeader, 0, 4);
                position += read;
                if (read == 0) {
                    return Optional.empty();
                }
                if (read < 4) {
                    throw problem(TRUNCATED_BLOCK, "the file ends inside a block's type");
                }
                int type = ByteBuffer.wrap(blockHeader, 0, 4).order(order).getInt();
                if (type == Pcapng.SECTION_HEADER) {
                    readSectionHeader();
                    continue;
                }
                Optional<CapturedPacket> packet;
                try {
                    packet = readBlock(type);
                } catch (BufferUnderflowException e) {
                    throw problem(BAD_BLOCK_CONTENT, "block type " + type + " is too short for its fixed fields");
                }
                if (packet.isPresent()) {
                    return packet;
                }
            }
        } catch (PcapFormatException e) {
            failure = e;
            throw e;
        }
    }

    /** Closes the underlying stream. */
    @Override
    public void close() throws IOException {
        in.close();
    }

    /** §4.1, its type already read: learns the byte order, checks the version, forgets the interfaces. */
    private void readSectionHeader() throws IOException {
        blockStart = position - 4;
        readFully(blockHeader, 4, 8, "a Section Header Block's length and byte-order magic");
        int magic = ByteBuffer.wrap(blockHeader, 8, 4).order(ByteOrder.BIG_ENDIAN).getInt();
        if (magic == Pcapng.BYTE_ORDER_MAGIC) {
            order = ByteOrder.BIG_ENDIAN;
        } else if (Integer.reverseBytes(magic) == Pcapng.BYTE_ORDER_MAGIC) {
            order = ByteOrder.LITTLE_ENDIAN;
        } else {
            throw problem(UNKNOWN_BYTE_ORDER, String.format("byte-order magic 0x%08X is 0x1A2B3C4D in neither order",
                    magic));
        }
        int length = ByteBuffer.wrap(blockHeader, 4, 4).order(order).getInt();
        // the versions and the section length follow the magic: 28 bytes at least
        ByteBuffer body = readBody(length, 4);
        if (body.remaining() < 12) {
            throw problem(BAD_BLOCK_LENGTH, "a Section Header Block of " + length + " bytes; it has 28 at least");
        }
        int major = Short.toUnsignedInt(body.getShort());
        if (major != Pcapng.MAJOR_VERSION) {
            throw problem(UNSUPPORTED_VERSION, "section version " + major + "." + Short.toUnsignedInt(body.getShort())
                    + "; only 1.x is pcapng");
        }
        interfaces.clear(); // §4.2: interface IDs are numbered per section
    }

    /** Any block but a section header, its type read: an interface is remembered, a packet returned. */
    private Optional<CapturedPacket> readBlock(int type) throws IOException {
        readFully(blockHeader, 4, 4, "a block's total length");
        int length = ByteBuffer.wrap(blockHeader, 4, 4).order(order).getInt();
        ByteBuffer body = readBody(length, 0);
        return switch (type) {
            case Pcapng.INTERFACE_DESCRIPTION -> {
                interfaces.add(interfaceDescription(body));
                yield Optional.empty();
            }
            case Pcapng.ENHANCED_PACKET -> {
                int interfaceId = body.getInt();
                yield Optional.of(timedPacket(interfaceId, body));
            }
            case Pcapng.OBSOLETE_PACKET -> {
                int interfaceId = Short.toUnsignedInt(body.getShort());
                body.getShort(); // drops_count
                yield Optional.of(timedPacket(interfaceId, body));
            }
            case Pcapng.SIMPLE_PACKET -> Optional.of(simplePacket(body));
            default -> Optional.empty(); // §3.1: a reader skips blocks it does not know
        };
    }

    private Interface interfaceDescription(ByteBuffer body) throws PcapFormatException {
        int linkType = Short.toUnsignedInt(body.getShort());
        body.getShort(); // reserved
        long snaplen = Integer.toUnsignedLong(body.getInt());
        int tsresol = 6; // §4.2: microseconds when the option is absent
        long tsoffset = 0;
        for (Option option : options(body)) {
            if (option.code == Pcapng.IF_TSRESOL && option.value.length == 1) {
                tsresol = Byte.toUnsignedInt(option.value[0]);
            } else if (option.code == Pcapng.IF_TSOFFSET && option.value.length == 8) {
                tsoffset = ByteBuffer.wrap(option.value).order(order).getLong();
            }
        }
        if ((tsresol & 0x80) == 0 ? tsresol > 18 : (tsresol & 0x7F) > 62) {
            throw problem(BAD_BLOCK_CONTENT, "if_tsresol " + tsresol + " counts finer than a 64-bit timestamp can span");
        }
        return new Interface(new LinkType(linkType), snaplen, tsresol, tsoffset);
    }

    /** An Enhanced or obsolete Packet Block from its timestamp on. */
    private CapturedPacket timedPacket(int interfaceId, ByteBuffer body) throws PcapFormatException {
        Interface described = described(interfaceId);
        long units = (Integer.toUnsignedLong(body.getInt()) << 32) | Integer.toUnsignedLong(body.getInt());
        long captured = Integer.toUnsignedLong(body.getInt());
        long original = Integer.toUnsignedLong(body.getInt());
        if (captured > body.remaining() || original > Integer.MAX_VALUE) {
            throw problem(BAD_BLOCK_CONTENT, "a packet of " + captured + " captured bytes (" + original
                    + " on the wire) does not fit its block's " + body.remaining());
        }
        byte[] data = new byte[(int) captured];
        body.get(data);
        body.position(body.position() + Pcapng.padded(data.length) - data.length);
        List<String> comments = new ArrayList<>();
        for (Option option : options(body)) {
            if (option.code == Pcapng.OPT_COMMENT) {
                comments.add(new String(option.value, StandardCharsets.UTF_8));
            }
        }
        return new CapturedPacket(interfaceId, described.linkType, nanos(described, units), (int) original, data,
                comments);
    }

    /** §4.4: interface 0, no timestamp, captured as much as the interface's snaplen and the block allow. */
    private CapturedPacket simplePacket(ByteBuffer body) throws PcapFormatException {
        Interface described = described(0);
        long original = Integer.toUnsignedLong(body.getInt());
        if (original > Integer.MAX_VALUE) {
            throw problem(BAD_BLOCK_CONTENT, "a packet of " + original + " bytes on the wire");
        }
        long captured = Math.min(original, described.snaplen == 0 ? original : described.snaplen);
        if (captured > body.remaining()) {
            throw problem(BAD_BLOCK_CONTENT, "a Simple Packet Block of " + original + " bytes in a block with "
                    + body.remaining());
        }
        byte[] data = new byte[(int) captured];
        body.get(data);
        return new CapturedPacket(0, described.linkType, 0, (int) original, data, List.of());
    }

    private Interface described(int interfaceId) throws PcapFormatException {
        if (interfaceId < 0 || interfaceId >= interfaces.size()) {
            throw problem(UNKNOWN_INTERFACE, "a packet on interface " + Integer.toUnsignedLong(interfaceId)
                    + "; its section describes " + interfaces.size());
        }
        return interfaces.get(interfaceId);
    }

    /** Timestamp units of the interface to nanoseconds since the epoch, its if_tsoffset added. */
    private long nanos(Interface described, long units) throws PcapFormatException {
        BigInteger nanos = new BigInteger(Long.toUnsignedString(units));
        int exponent = described.tsresol & 0x7F;
        if ((described.tsresol & 0x80) != 0) {
            nanos = nanos.multiply(BigInteger.valueOf(1_000_000_000L)).shiftRight(exponent);
        } else if (exponent <= 9) {
            nanos = nanos.multiply(BigInteger.TEN.pow(9 - exponent));
        } else {
            nanos = nanos.divide(BigInteger.TEN.pow(exponent - 9));
        }
        nanos = nanos.add(BigInteger.valueOf(described.tsoffsetSeconds).multiply(BigInteger.valueOf(1_000_000_000L)));
        if (nanos.signum() < 0 || nanos.bitLength() > 63) {
            throw problem(TIMESTAMP_OUT_OF_RANGE, "a timestamp of " + nanos + " ns since 1970");
        }
        return nanos.longValueExact();
    }

    private record Option(int code, byte[] value) {
    }

    /** §3.5: options to the end of the body or opt_endofopt; each value padded to 32 bits. */
    private List<Option> options(ByteBuffer body) throws PcapFormatException {
        List<Option> options = new ArrayList<>();
        while (body.remaining() >= 4) {
            int code = Short.toUnsignedInt(body.getShort());
            int length = Short.toUnsignedInt(body.getShort());
            if (code == Pcapng.OPT_END) {
                break;
            }
            if (Pcapng.padded(length) > body.remaining()) {
                throw problem(BAD_BLOCK_CONTENT, "option " + code + " of " + length + " bytes runs past its block");
            }
            byte[] value = new byte[length];
            body.get(value);
            body.position(body.position() + Pcapng.padded(length) - length);
            options.add(new Option(code, value));
        }
        return options;
    }

    /**
     * Reads the rest of a block whose total length is {@code length}, of which {@code bodyRead} body bytes are
     * in {@link #blockHeader} already, and checks the trailing length; returns the unread body.
     */
    private ByteBuffer readBody(int length, int bodyRead) throws IOException {
        int overhead = Pcapng.BLOCK_HEADER + Pcapng.BLOCK_TRAILER;
        if (length < overhead + bodyRead || length % 4 != 0 || length > MAX_BLOCK_LENGTH) {
            throw problem(BAD_BLOCK_LENGTH, "block total length " + Integer.toUnsignedLong(length)
                    + " (at least " + (overhead + bodyRead) + ", a multiple of 4, at most " + MAX_BLOCK_LENGTH + ")");
        }
        int restLength = length - Pcapng.BLOCK_HEADER - bodyRead;
        // Grows as bytes arrive: a lying length in a short file costs no 256 MiB array.
        byte[] rest = in.readNBytes(restLength);
        position += rest.length;
        if (rest.length < restLength) {
            throw problem(TRUNCATED_BLOCK, "the file ends inside a block of " + length + " bytes, after "
                    + (Pcapng.BLOCK_HEADER + bodyRead + rest.length));
        }
        ByteBuffer view = ByteBuffer.wrap(rest).order(order);
        int trailer = view.getInt(rest.length - Pcapng.BLOCK_TRAILER);
        if (trailer != length) {
            throw problem(BAD_BLOCK_LENGTH, "the block's total length is " + length + " at its start but "
                    + Integer.toUnsignedLong(trailer) + " at its end");
        }
        return view.limit(rest.length - Pcapng.BLOCK_TRAILER);
    }

    private void readFully(byte[] into, int offset, int length, String what) throws IOException {
        int read = in.readNBytes(into, offset, length);
        position += read;
        if (read < length) {
            throw problem(TRUNCATED_BLOCK, "the file ends inside " + what + ", after " + read + " of " + length
                    + " bytes");
        }
    }

    private PcapFormatException problem(PcapFormatException.Problem problem, String detail) {
        return new PcapFormatException(problem, blockStart, "pcapng block: " + detail);
    }
}
