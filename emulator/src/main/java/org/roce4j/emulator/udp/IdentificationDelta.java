package org.roce4j.emulator.udp;

import java.util.zip.CRC32;

import org.roce4j.wire.IcrcCalculator;

/**
 * How the ICRC changes with the IPv4 Identification it covers (IBTA A17.4.2). CRC-32 is affine over
 * GF(2): for inputs of equal length, {@code crc(a ⊕ b ⊕ c) = crc(a) ⊕ crc(b) ⊕ crc(c)}. So giving a
 * frame Identification {@code id} instead of 0 changes its ICRC by {@code crc(Z_id) ⊕ crc(Z_0)}, where
 * {@code Z_id} is all zeros but the Identification: a linear function of {@code id}'s 16 bits that
 * depends only on how many bytes of the ICRC's input follow the Identification. One vector per bit,
 * per such length, computed once; the sender ({@link SegmentBurst}) and the receiver ({@link
 * ReceivedIcrc}) share them.
 */
final class IdentificationDelta {
    /** Offset in the ICRC's input of the IPv4 Identification: 8 bytes of pseudo-LRH, then IP bytes 4..5. */
    static final int ID_POSITION = IcrcCalculator.IPV4_IDENTIFICATION_POSITION;
    /** The Identification's length: 16 bits. */
    static final int ID_LENGTH = 2;
    /** The longest datagram the link takes (a 9216-byte jumbo frame), and the pseudo-LRH. */
    static final int MAX_COVERED = 9216 + 8;

    private final CRC32 crc = new CRC32();
    private final byte[] zeros = new byte[MAX_COVERED + ID_POSITION];
    /** Per trailing length after the Identification: the ICRC change of each Identification bit. */
    private final int[][] bitVectors = new int[MAX_COVERED + ID_POSITION][];

    /** The ICRC change when Identification 0 becomes {@code id}, with {@code trailing} covered bytes after it. */
    int of(int id, int trailing) {
        int[] vectors = bitVectors(trailing);
        int delta = 0;
        for (int bit = 0; bit < 16; bit++) {
            if ((id >>> bit & 1) != 0) {
                delta ^= vectors[bit];
            }
        }
        return delta;
    }

    /** The ICRC change of Identification bit {@code b}, at index {@code b}, for {@code trailing} bytes after it. */
    int[] bitVectors(int trailing) {
        int[] vectors = bitVectors[trailing];
        if (vectors == null) {
            vectors = new int[16];
            int zero = crcOfZeros(ID_LENGTH + trailing);
            for (int bit = 0; bit < 16; bit++) {
                vectors[bit] = crcOfWord(1 << bit, ID_LENGTH + trailing) ^ zero;
            }
            bitVectors[trailing] = vectors;
        }
        return vectors;
    }

    /** CRC-32 of {@code length} bytes: the 16-bit {@code word} (network order), then zeros. */
    int crcOfWord(int word, int length) {
        crc.reset();
        crc.update(word >>> 8);
        crc.update(word & 0xFF);
        crc.update(zeros, 0, length - 2);
        return (int) crc.getValue();
    }

    int crcOfZeros(int length) {
        crc.reset();
        crc.update(zeros, 0, length);
        return (int) crc.getValue();
    }
}
