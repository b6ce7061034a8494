package org.roce4j.emulator;

import java.net.InetAddress;
import java.util.List;
import java.util.function.Supplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A link other than the in-process fabric's switch — the UDP link of
 * {@code org.roce4j.emulator.udp} — to which an RNIC is attached with
 * {@link SoftRnic.Builder#link(ExternalLink)}. The RNIC still runs on a (threaded) {@link
 * org.roce4j.emulator.fabric.Fabric}: its lock, clock, event loop and timers; only the frames take
 * another way. The link routes by IP address (the AV's GID), so the RNIC does no neighbour lookup
 * and writes 00:00:00:00:00:00 as the destination MAC.
 *
 * <p>The RNIC builds each frame with the IP and UDP header values the link's transport will really
 * put on the wire, because the ICRC covers the IPv4 Identification and the UDP source port
 * (IBTA A17.4.2): {@link #udpSourcePort()} and {@link #zeroIpv4Identification()} tell it which.
 */
public interface ExternalLink {

    /** The UDP source port every frame carries (the socket's own port), or -1 for rxe's per-QP port. */
    int udpSourcePort();

    /**
     * True when the transport sends IPv4 Identification 0 (Linux, for an unconnected UDP socket with
     * DF set), so frames carry 0 instead of the RNIC's per-node counter.
     */
    boolean zeroIpv4Identification();

    /**
     * Called once, before {@link #attached}: whether the device puts on an RC FLUSH, and expects of
     * one, the ICRC Linux rxe computes ({@link Quirk#RC_FLUSH_ICRC_COUNTS_ITS_HEADERS_TWICE}), which
     * the link's ICRC check must then follow. A link that checks no ICRC ignores it.
     */
    default void flushIcrcAsRxe(boolean asRxe) {
    }

    /** Called once, when the RNIC is attached: where the link hands received datagrams. */
    void attached(DatagramReceiver receiver);

    /** {@return whether {@link #pollReceive} reads: the application's threads poll this device} */
    default boolean receiveIsPolled() {
        return false;
    }

    /**
     * From an application thread that polls one of the device's CQs and found it empty, holding no fabric
     * lock, on a link whose {@link #receiveIsPolled}: reads what the link holds now and hands it to the
     * receiver, on this thread (as a DPDK driver's poll does), unless another thread is reading.
     *
     * @return the datagrams handed over
     */
    default int pollReceive() {
        return 0;
    }

    /**
     * Sends one frame the RNIC built: Ethernet, IP, UDP, BTH … ICRC. Called holding the fabric lock,
     * from the event loop or an API thread: must not block, and must copy what it keeps.
     */
    void transmit(byte[] frame, int offset, int length);

    /**
     * The RNIC's duty cycle, or its handling of one received datagram, starts: frames {@link #transmit}
     * gets until {@link #endBurst} may be held back and leave together (UDP segmentation offload).
     * Holding the fabric lock.
     */
    default void beginBurst() {
    }

    /** The duty cycle is done: what {@link #beginBurst} let the link hold back leaves now. Holding the fabric lock. */
    default void endBurst() {
    }

    /**
     * Frames handed to {@link #transmit} and not yet on the wire: how full the link's transmit
     * queue is. The RNIC sends READ responses only while this is low. 0 for a link without a queue.
     */
    default int framesQueued() {
        return 0;
    }

    /**
     * Runs {@code action} once, on any thread and holding no lock of the link's, when
     * {@link #framesQueued()} is at most {@code frames} — at once if it already is. A later call
     * replaces an action not yet run.
     */
    default void whenQueuedAtMost(int frames, Runnable action) {
        action.run();
    }

    /**
     * The device's QPs are attached to the multicast groups {@code current} returns now: the link joins
     * those it has not joined on its interface and leaves the others, so that the host's kernel delivers
     * the groups' datagrams. Called from an API thread, without the fabric lock; it may block.
     */
    default void multicastGroups(Supplier<List<InetAddress>> current) {
    }

    /**
     * What the host's routing table says of the way to {@code destination} (rdma_cm's address
     * resolution asks, as addr.c's {@code addr_resolve} asks the kernel). Called holding the
     * host's lock: it must answer from the tables at once, without waiting on the network.
     *
     * @param source the id's bound source address, or null to let the kernel pick one
     */
    default HostRoute route(InetAddress destination, InetAddress source) {
        return HostRoute.unknown(destination, "this link does not read the host's routing table");
    }

    /**
     * Whether the neighbour entry of {@code route}'s next hop is valid ({@code NUD_VALID}); when it is
     * not, makes the kernel resolve it, as addr.c's {@code dst_fetch_ha} does with
     * {@code neigh_event_send}. Completes on a thread of the link's, never the caller's: reading the
     * table may take a process.
     */
    default CompletionStage<Boolean> neighbourValid(HostRoute route) {
        return CompletableFuture.completedFuture(true);
    }
}
