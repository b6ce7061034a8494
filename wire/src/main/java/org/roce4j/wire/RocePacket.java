package org.roce4j.wire;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The InfiniBand transport part of a RoCEv2 packet, what a UDP datagram to port 4791 carries
 * before the ICRC: BTH, the extension headers the opcode prescribes in their wire order, and the
 * payload (without pad bytes; the BTH pad count says how many zero bytes follow it).
 */
public record RocePacket(Bth bth, List<ExtensionHeader> headers, byte[] payload) {

    /** Checks that the headers are exactly the opcode's, in order, and the pad count fits the payload. */
    public RocePacket {
        if (bth == null || headers == null || payload == null) {
            throw new IllegalArgumentException("bth, headers and payload are required");
        }
        headers = List.copyOf(headers);
        payload = payload.clone();
        Opcode opcode = bth.opcode();
        List<HeaderType> expected = opcode.headers().subList(1, opcode.headers().size());
        List<HeaderType> actual = headers.stream().map(ExtensionHeader::type).toList();
        if (!expected.equals(actual)) {
            throw new IllegalArgumentException(opcode + " carries " + expected + ", not " + actual);
        }
        if (!opcode.carriesPayload() && payload.length != 0) {
            throw new IllegalArgumentException(opcode + " carries no payload, got " + payload.length + " bytes");
        }
        if (bth.padCount() != padFor(payload.length)) {
            throw new IllegalArgumentException("pad count " + bth.padCount() + " does not pad "
                    + payload.length + " payload bytes to 4 (expected " + padFor(payload.length) + ")");
        }
    }

    /** Builds a packet, setting the BTH pad count for the payload (IBTA §9.2: pad to 4 bytes). */
    public static RocePacket of(Bth bth, List<ExtensionHeader> headers, byte[] payload) {
        return new RocePacket(bth.withPadCount(padFor(payload.length)), headers, payload);
    }

    /** A packet whose opcode carries no payload (ACK, READ request, atomics, ...). */
    public static RocePacket of(Bth bth, ExtensionHeader... headers) {
        return of(bth, List.of(headers), new byte[0]);
    }

    /** Pad bytes needed after {@code payloadLength} bytes to reach a 4-byte boundary. */
    public static int padFor(int payloadLength) {
        return -payloadLength & 3;
    }

    /** A copy of the payload. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    public int payloadLength() {
        return payload.length;
    }

    /** Bytes from BTH to the end of the pad, i.e. the UDP payload without the ICRC. */
    public int length() {
        return bth.opcode().headersLength() + payload.length + bth.padCount();
    }

    public Opcode opcode() {
        return bth.opcode();
    }

    /** The extension header of the given type, if the opcode carries one. */
    public <T extends ExtensionHeader> Optional<T> header(Class<T> type) {
        for (ExtensionHeader header : headers) {
            if (type.isInstance(header)) {
                return Optional.of(type.cast(header));
            }
        }
        return Optional.empty();
    }

    /** Writes BTH, headers, payload and zero pad at {@code off}; returns the bytes written. */
    public int encode(byte[] b, int off) {
        bth.encode(b, off);
        int at = off + HeaderType.BTH.length();
        for (int i = 0; i < headers.size(); i++) {
            ExtensionHeader header = headers.get(i);
            header.encode(b, at);
            at += header.type().length();
        }
        System.arraycopy(payload, 0, b, at, payload.length);
        at += payload.length;
        Arrays.fill(b, at, at + bth.padCount(), (byte) 0);
        return at + bth.padCount() - off;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RocePacket that && bth.equals(that.bth) && headers.equals(that.headers)
                && Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode() {
        return (bth.hashCode() * 31 + headers.hashCode()) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        String hex = HexFormat.of().formatHex(payload, 0, Math.min(payload.length, 32));
        return "RocePacket[" + bth + ", " + headers + ", payload(" + payload.length + ")=" + hex
                + (payload.length > 32 ? "..." : "") + "]";
    }
}
