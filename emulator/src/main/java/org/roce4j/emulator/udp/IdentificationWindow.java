package org.roce4j.emulator.udp;

/**
 * What one receiving socket knows of each IPv4 sender's Identification sequence, so that the ICRC
 * check accepts only the Identifications that sender can have used next (see {@link ReceivedIcrc}).
 *
 * <p>How Linux numbers them: rxe builds its IPv4 header itself (rxe_net.c prepare_ipv4_hdr, DF set)
 * and takes the Identification from {@code __ip_select_ident}: a counter in a bucket chosen by a
 * hash of (destination, source, protocol) (net/ipv4/route.c ip_idents_reserve). Each datagram adds
 * 1; when the bucket was last used {@code Δ} jiffies ago, it first jumps by a random amount below
 * {@code Δ} ({@code get_random_u32_below(now - old)}). Over any time {@code t} the jumps add up to
 * less than the jiffies that passed, at most {@code t × HZ} with HZ ≤ 1000. So after the last
 * Identification {@code last} seen from a sender, {@code t} seconds ago, its next one lies in
 * {@code last + 1 … last + n + t × 1000}, {@code n} being the datagrams it sent meanwhile that we did
 * not see (lost, or other UDP traffic hashed into the same bucket). The Soft-RoCE reference
 * captures show exactly that: steps of 1 and 2 back to back, and 840 and 1182 after 5.3 s idle.
 *
 * <p>The window accepted: {@code last - BEHIND … last + BASE_WINDOW + ⌈t × 1000⌉} with the same DF flag
 * (a little reordering, {@code BASE_WINDOW} unseen datagrams, and every idle jump, by construction). A
 * roce4j UDP link always sends Identification 0 with DF: its window is {@code 0}'s.
 *
 * <p>Outside the window (more than BASE_WINDOW datagrams lost in a burst, a restarted sender, a
 * middlebox rewriting Identifications, or a corrupt frame whose ICRC happens to match a far
 * Identification) the frame is dropped and counted ({@code UdpLinkCounters.icrcIdOutsideWindow}),
 * and its Identification is kept as a resync candidate: the next frame from that sender whose
 * Identification lies in the candidate's window confirms it, is accepted, and the sender's window
 * moves there (counted with {@code icrcIdRecovered}). So a real jump costs one frame, dropped and counted,
 * never silently: RC retransmits it; for UD or UC it is lost, as a frame dropped on the network would be.
 * The first frame from an unknown sender is accepted with whatever Identification matches (DF preferred).
 *
 * <p>Bounded: {@value #PEERS} senders per socket, the oldest entry replaced; a sender replaced or
 * not yet seen is a first contact again.
 */
final class IdentificationWindow {
    /** Datagrams a sender may have sent that we did not see, between two we did. */
    static final int BASE_WINDOW = 256;
    /** How far behind the last one an Identification may be (reordering). */
    static final int BEHIND = 32;
    /** The largest HZ Linux is built with: the idle jumps add up to less than this many per second. */
    static final long MAX_HZ = 1000;
    static final int PEERS = 64;

    private final int[] address = new int[PEERS];
    private final boolean[] known = new boolean[PEERS];
    private final int[] lastId = new int[PEERS];
    private final boolean[] lastDf = new boolean[PEERS];
    private final long[] lastNanos = new long[PEERS];
    private final int[] candidateId = new int[PEERS];
    private final boolean[] candidateDf = new boolean[PEERS];
    private final long[] candidateNanos = new long[PEERS];
    private int replaceNext;

    /** The slot of {@code source}, or -1 for a sender not (or no longer) known. */
    int find(int source) {
        for (int s = 0; s < PEERS; s++) {
            if (known[s] && address[s] == source) {
                return s;
            }
        }
        return -1;
    }

    /** A first contact: the sender's window starts at {@code id}. */
    void learn(int source, int id, boolean df, long nowNanos) {
        int s = -1;
        for (int i = 0; i < PEERS && s < 0; i++) {
            if (!known[i]) {
                s = i;
            }
        }
        if (s < 0) {
            s = replaceNext;
            replaceNext = (replaceNext + 1) % PEERS;
        }
        address[s] = source;
        known[s] = true;
        moveTo(s, id, df, nowNanos);
    }

    /** How many Identifications after the last one are acceptable {@code elapsedNanos} later. */
    static int ahead(long elapsedNanos) {
        long jumps = elapsedNanos <= 0 ? 0 : (elapsedNanos * MAX_HZ + 999_999_999L) / 1_000_000_000L;
        return (int) Math.min(0x10000, BASE_WINDOW + Math.min(jumps, 0x10000));
    }

    /** Is {@code id} (with {@code df}) inside slot {@code s}'s window? */
    boolean inWindow(int s, int id, boolean df, long nowNanos) {
        return df == lastDf[s] && within(lastId[s], id, nowNanos - lastNanos[s], BEHIND);
    }

    private static boolean within(int from, int id, long elapsedNanos, int behind) {
        int forward = (id - from) & 0xFFFF;
        return forward <= ahead(elapsedNanos) || forward >= 0x10000 - behind;
    }

    /** An accepted Identification: the window moves on when it is ahead of the last one. */
    void accepted(int s, int id, long nowNanos) {
        int forward = (id - lastId[s]) & 0xFFFF;
        if (forward < 0x8000) {
            lastId[s] = id;
            lastNanos[s] = nowNanos;
        }
    }

    /** Does {@code id} confirm the resync candidate of slot {@code s}? */
    boolean confirms(int s, int id, boolean df, long nowNanos) {
        return candidateId[s] >= 0 && df == candidateDf[s]
                && within(candidateId[s], id, nowNanos - candidateNanos[s], 0) && id != candidateId[s];
    }

    /** Confirmed: the sender's window moves to {@code id}. */
    void resync(int s, int id, boolean df, long nowNanos) {
        moveTo(s, id, df, nowNanos);
    }

    /** Outside the window: {@code id} becomes the candidate a later frame may confirm. */
    void suspect(int s, int id, boolean df, long nowNanos) {
        candidateId[s] = id;
        candidateDf[s] = df;
        candidateNanos[s] = nowNanos;
    }

    private void moveTo(int s, int id, boolean df, long nowNanos) {
        lastId[s] = id;
        lastDf[s] = df;
        lastNanos[s] = nowNanos;
        candidateId[s] = -1;
    }
}
