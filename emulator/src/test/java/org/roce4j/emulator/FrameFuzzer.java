package org.roce4j.emulator;

import java.util.SplittableRandom;

import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.Transport;

/**
 * The forging sender of {@link ForgedFrameFuzzTest}: transport bytes (BTH on, no ICRC) for a
 * target QP. It knows the QPNs and the responder's expected PSN (it aims at it often), not the
 * rkey: it guesses keys blindly (the old first key 0x101, counted keys, random, 0) — a blind guess
 * that is right is the sender's luck, and counts — and tries near misses of the real key (one bit
 * off, a little off), which is knowledge it does not have: a frame made from a near miss never
 * carries the real rkey, even after its random byte changes.
 */
final class FrameFuzzer {
    private static final Opcode[] RC_REQUESTS = requests(Transport.RC);
    private static final Opcode[] UC_REQUESTS = requests(Transport.UC);

    private final SplittableRandom random;
    private final int realRkey;
    private final long regionAddress;
    private final int regionLength;

    FrameFuzzer(SplittableRandom random, int realRkey, long regionAddress, int regionLength) {
        this.random = random;
        this.realRkey = realRkey;
        this.regionAddress = regionAddress;
        this.regionLength = regionLength;
    }

    private static Opcode[] requests(Transport transport) {
        return Opcode.of(transport).stream().filter(Opcode::isRequest).toArray(Opcode[]::new);
    }

    /** Set when the key of the frame being made was derived from the real one. */
    private boolean nearMiss;

    /** 30% random frames, 70% mutated valid requests. */
    byte[] next(Qp target, int expectedPsn) {
        nearMiss = false;
        byte[] t = random.nextInt(10) < 3 ? randomFrame(target, expectedPsn) : mutatedValid(target, expectedPsn);
        if (nearMiss) {
            hideRealRkey(t);
        }
        return t;
    }

    private int guessRkey() {
        int choice = random.nextInt(6);
        nearMiss = choice == 2 || choice == 3;
        return switch (choice) {
            case 0 -> 0x101;
            case 1 -> random.nextInt(1, 64) << 8 | random.nextInt(256);
            case 2 -> realRkey ^ 1 << random.nextInt(32);
            case 3 -> realRkey + (random.nextBoolean() ? random.nextInt(1, 300) : -random.nextInt(1, 300));
            case 4 -> 0;
            default -> random.nextInt();
        };
    }

    private int guessPsn(int expected) {
        return switch (random.nextInt(10)) {
            case 0, 1, 2, 3 -> expected;
            case 4, 5, 6 -> (expected + random.nextInt(-5, 6)) & 0xFFFFFF;
            default -> random.nextInt(1 << 24);
        };
    }

    /** A well-formed request with guessed key and PSN, then 0..3 random byte changes. */
    private byte[] mutatedValid(Qp target, int expectedPsn) {
        Opcode[] opcodes = target.type() == QpType.RC ? RC_REQUESTS : UC_REQUESTS;
        Opcode opcode = opcodes[random.nextInt(opcodes.length)];
        long va = regionAddress + random.nextInt(-64, regionLength + 64);
        int payload = switch (opcode.position()) {
            case FIRST, MIDDLE -> 256;
            default -> random.nextInt(3) == 0 ? random.nextInt(0, 300) : random.nextInt(1, 257);
        };
        int rkey = guessRkey();
        byte[] headers = switch (opcode.kind()) {
            case RDMA_WRITE, RDMA_READ_REQUEST -> opcode.position().startsMessage()
                    ? ForgedFrames.reth(va, rkey, random.nextInt(4) == 0 ? random.nextInt() : payload)
                    : new byte[0];
            case ATOMIC -> {
                byte[] h = new byte[28];
                random.nextBytes(h);
                System.arraycopy(ForgedFrames.reth(va & ~7L, rkey, 0), 0, h, 0, 12);
                yield h;
            }
            default -> new byte[0];
        };
        if (opcode.hasImmediate() || opcode.hasInvalidate()) {
            byte[] more = new byte[headers.length + 4];
            System.arraycopy(headers, 0, more, 0, headers.length);
            more[headers.length] = (byte) random.nextInt();
            headers = more;
        }
        if (opcode.kind() == OperationKind.RDMA_READ_REQUEST || opcode.kind() == OperationKind.ATOMIC) {
            payload = 0;
        }
        byte[] data = new byte[payload];
        random.nextBytes(data);
        byte[] t = ForgedFrames.transport(opcode.code(), target.qpNum(), guessPsn(expectedPsn), random.nextBoolean(),
                headers, data);
        for (int n = random.nextInt(4); n > 0; n--) {
            t[random.nextInt(t.length)] = (byte) random.nextInt();
        }
        return t;
    }

    /** Random bytes behind a BTH whose opcode is random and whose QPN and PSN are often right. */
    private byte[] randomFrame(Qp target, int expectedPsn) {
        byte[] t = new byte[12 + random.nextInt(0, 400)];
        random.nextBytes(t);
        if (random.nextInt(8) != 0) {
            t[1] &= 0x30; // TVer 0 and no migration bit, mostly; any pad count
        }
        t[2] = (byte) 0xFF;
        t[3] = (byte) 0xFF;
        if (random.nextInt(4) != 0) {
            int qpn = target.qpNum();
            t[5] = (byte) (qpn >>> 16);
            t[6] = (byte) (qpn >>> 8);
            t[7] = (byte) qpn;
            int psn = guessPsn(expectedPsn);
            t[9] = (byte) (psn >>> 16);
            t[10] = (byte) (psn >>> 8);
            t[11] = (byte) psn;
        }
        return t;
    }

    /** Wherever an ETH's rkey could sit (every 4-byte word after BTH), the real one is changed. */
    private void hideRealRkey(byte[] t) {
        for (int at = 12; at + 4 <= t.length; at += 4) {
            int v = (t[at] & 0xFF) << 24 | (t[at + 1] & 0xFF) << 16 | (t[at + 2] & 0xFF) << 8 | t[at + 3] & 0xFF;
            if (v == realRkey) {
                t[at + 3] ^= 1;
            }
        }
    }
}
