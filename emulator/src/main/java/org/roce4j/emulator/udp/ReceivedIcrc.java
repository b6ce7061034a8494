package org.roce4j.emulator.udp;

import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.IpHeader;
import org.roce4j.wire.Ipv4Header;

/**
 * Checks the ICRC of a datagram received on a UDP socket, which does not show the IP header.
 *
 * <p>The ICRC (IBTA A17.4.2) covers the IPv4 Identification and flags, which only the sender knew.
 * The link writes the header it can know in front of the payload — addresses, ports and lengths
 * from the socket, Identification 0 and DF, which is what a roce4j UDP link sends (Linux puts ID 0
 * on DF datagrams of an unconnected socket) — and checks:
 * <ol>
 *   <li>IPv6: every covered field is known (flow label, traffic class and hop limit are masked):
 *       the ICRC must match, exactly as on a frame.</li>
 *   <li>IPv4: CRC-32 is affine over GF(2), so the ICRC's change caused by an Identification
 *       {@code id} is a fixed linear function {@code L(id)} of its 16 bits (for a given packet
 *       length), and {@code L} is injective (a CRC-32 detects every error burst of up to 32 bits).
 *       Solving {@code L(id) = received ⊕ computed(ID 0)} gives the one Identification with DF,
 *       and the one with DF clear, that make the ICRC match (ID 0 with DF, a roce4j sender's, is
 *       the solution when the ICRC matches as written). Then the sender's Identification sequence
 *       decides ({@link IdentificationWindow}, which says why Linux's sequence allows it): a
 *       solution inside the window of IDs that sender can have used next → {@link Verdict#VALID}
 *       (ID 0 with DF) or {@link Verdict#VALID_ID_RECOVERED}, and the header is rewritten with it;
 *       a solution outside it → {@link Verdict#ID_OUTSIDE_WINDOW} (dropped, remembered as a resync
 *       candidate that the sender's next frame can confirm: {@link Verdict#ID_RESYNCED}); no
 *       solution → {@link Verdict#INVALID}.</li>
 * </ol>
 * False accepts: a corrupted frame's ICRC difference is, for any error a CRC-32 does not catch by
 * construction, a uniformly random 32-bit value, and it passes only when it equals {@code L(id)}
 * (or {@code L(id) ⊕ DF}) for an accepted {@code id}: with {@code A} Identifications acceptable,
 * probability {@code A / 2³²}. Back to back from a known sender {@code A = BEHIND + 1 + BASE_WINDOW
 * + ⌈t × 1000/s⌉} = 289 plus one per millisecond since its last frame: about 2⁻²³·⁸ (1 s idle: 1289,
 * 2⁻²¹·⁷), where accepting any Identification gave 2 × 2¹⁶ / 2³² = 2⁻¹⁵. The first frame from a
 * sender (nothing known yet) is still checked at 2⁻¹⁵. Over IPv6 the check is the full 32 bits.
 */
final class ReceivedIcrc {

    enum Verdict { VALID, VALID_ID_RECOVERED, ID_RESYNCED, ID_OUTSIDE_WINDOW, INVALID }

    private static final int ID_POSITION = IdentificationDelta.ID_POSITION;
    static final int MAX_COVERED = IdentificationDelta.MAX_COVERED;
    /** rxe and roce4j send DF: that solution is tried first. */
    private static final boolean[] DF_FIRST = {true, false};

    private final IcrcCalculator icrc = new IcrcCalculator();
    private final IdentificationDelta deltas = new IdentificationDelta();
    /** Per trailing length after the Identification: the reduced basis of L, and DF's vector. */
    private final int[][] solvers = new int[MAX_COVERED + ID_POSITION][];
    private final IdentificationWindow senders = new IdentificationWindow();

    /** Whether an RC FLUSH's ICRC is the one Linux rxe computes ({@link IcrcCalculator}). */
    void flushAsRxe(boolean asRxe) {
        icrc.flushAsRxe(asRxe);
    }

    /**
     * Checks the ICRC at {@code icrcOffset} of the packet whose IP header starts at {@code ip},
     * received at {@code nowNanos} (any clock that moves at the speed of time; the window widens
     * with the time since the sender's last frame). For IPv4 the header must hold Identification 0
     * and flags DF; when another Identification is accepted, the header is rewritten with it (and
     * its flags) and its checksum recomputed.
     */
    Verdict check(byte[] b, int ip, int icrcOffset, long nowNanos) {
        int computed = icrc.compute(b, ip, icrcOffset);
        int received = IcrcCalculator.read(b, icrcOffset);
        if (IpHeader.versionAt(b, ip) != 4) {
            return computed == received ? Verdict.VALID : Verdict.INVALID;
        }
        int messageLength = icrc.coveredLength(b, ip, icrcOffset);
        int[] solver = solver(messageLength - ID_POSITION - IdentificationDelta.ID_LENGTH);
        // CRC-32 stores its register reflected; the value read LSB first is the CRC32 value itself.
        int delta = computed ^ received;
        int withDf = solve(solver, delta);
        int withoutDf = solve(solver, delta ^ solver[48]);
        if (withDf < 0 && withoutDf < 0) {
            return Verdict.INVALID;
        }
        int source = Ipv4Header.sourceAt(b, ip);
        int s = senders.find(source);
        if (s < 0) {
            boolean df = withDf >= 0;
            int id = df ? withDf : withoutDf;
            senders.learn(source, id, df, nowNanos);
            return accept(b, ip, id, df);
        }
        for (boolean df : DF_FIRST) {
            int id = df ? withDf : withoutDf;
            if (id >= 0 && senders.inWindow(s, id, df, nowNanos)) {
                senders.accepted(s, id, nowNanos);
                return accept(b, ip, id, df);
            }
        }
        for (boolean df : DF_FIRST) {
            int id = df ? withDf : withoutDf;
            if (id >= 0 && senders.confirms(s, id, df, nowNanos)) {
                senders.resync(s, id, df, nowNanos);
                accept(b, ip, id, df);
                return Verdict.ID_RESYNCED;
            }
        }
        boolean df = withDf >= 0;
        senders.suspect(s, df ? withDf : withoutDf, df, nowNanos);
        return Verdict.ID_OUTSIDE_WINDOW;
    }

    /** Writes the accepted Identification and flags into the header. */
    private static Verdict accept(byte[] b, int ip, int id, boolean df) {
        if (id == 0 && df) {
            return Verdict.VALID; // what the header already says
        }
        Ipv4Header.writeIdentification(b, ip, id, df);
        return Verdict.VALID_ID_RECOVERED;
    }

    private static int solve(int[] solver, int delta) {
        int d = delta;
        int combination = 0;
        for (int j = 0; j < 16; j++) {
            if ((d >>> solver[j] & 1) != 0) {
                d ^= solver[16 + j];
                combination ^= solver[32 + j];
            }
        }
        return d == 0 ? combination : -1;
    }

    /**
     * The reduced basis for {@code trailing} bytes after the Identification: pivots [0,16),
     * vectors [16,32), the Identification bits they stand for [32,48), DF's vector at 48.
     */
    private int[] solver(int trailing) {
        int[] solver = solvers[trailing];
        if (solver != null) {
            return solver;
        }
        solver = new int[49];
        int[] vectors = deltas.bitVectors(trailing);
        int rank = 0;
        for (int bit = 0; bit < 16; bit++) {
            int v = vectors[bit];
            int combination = 1 << bit;
            for (int j = 0; j < rank; j++) {
                if ((v >>> solver[j] & 1) != 0) {
                    v ^= solver[16 + j];
                    combination ^= solver[32 + j];
                }
            }
            if (v == 0) {
                throw new IllegalStateException("CRC-32 lost an Identification bit: cannot happen");
            }
            solver[rank] = 31 - Integer.numberOfLeadingZeros(v);
            solver[16 + rank] = v;
            solver[32 + rank] = combination;
            rank++;
        }
        // DF is bit 14 of the 16-bit flags word after the Identification.
        solver[48] = deltas.crcOfWord(Ipv4Header.DONT_FRAGMENT, trailing) ^ deltas.crcOfZeros(trailing);
        solvers[trailing] = solver;
        return solver;
    }
}
