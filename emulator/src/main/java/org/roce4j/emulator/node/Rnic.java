package org.roce4j.emulator.node;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.ExternalLink;
import org.roce4j.emulator.Quirk;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.emulator.verbs.DeviceCapabilities;
import org.roce4j.emulator.verbs.DeviceLimits;
import org.roce4j.emulator.verbs.EmulatedDevice;
import org.roce4j.emulator.verbs.EmulatedQp;
import org.roce4j.emulator.verbs.KeySource;
import org.roce4j.emulator.verbs.MemoryRegionTable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToIntBiFunction;

import org.roce4j.emulator.fabric.Agent;
import org.roce4j.emulator.fabric.Clock;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.fabric.FabricPort;
import org.roce4j.emulator.fabric.FrameReceiver;
import org.roce4j.emulator.fabric.PayloadReference;
import org.roce4j.emulator.fabric.RunLimitExceededException;
import org.roce4j.emulator.transport.Responder;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.PortAttr;
import org.roce4j.verbs.PortCounters;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.IcrcStatus;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.PacketWriter;
import org.roce4j.wire.Position;
import org.roce4j.wire.Transport;
import org.roce4j.wire.mad.MadHeader;

/**
 * One emulated RNIC: its port on the fabric, GID table, memory regions and queue pairs, and the
 * duty cycle that moves their work. Frames arrive through {@link #onFrame} (parsed once into a
 * reused {@link PacketInfo}, like rxe's {@code rxe_rcv}) and are handed to the destination QP's
 * responder or completer at once; requesters run from {@link #doWork}. Both run under the fabric
 * lock, so nothing here needs locks of its own; API calls take the same lock with {@link #call}.
 */
public final class Rnic implements Agent, FrameReceiver {
    /** Packets one QP's requester may send per duty cycle before the next QP gets its turn. */
    public static final int PACKETS_PER_TURN = 16;
    /**
     * READ responses leave only while the link's transmit queue holds fewer frames than this
     * (≈ 1.7 ms of the UDP link's default 150 k frames/s); a READ that finds it full waits until
     * the queue is down to {@link #READ_QUEUE_LOW}.
     */
    public static final int READ_QUEUE_HIGH = 256;
    static final int READ_QUEUE_LOW = READ_QUEUE_HIGH / 2;
    /** rxe: RXE_ROCE_V2_SPORT, the base of the dynamic port range the source ports hash into. */
    static final int SOURCE_PORT_BASE = 0xC000;
    private static final int GOLDEN_RATIO_32 = 0x61C88647;

    public final String name;
    public final MacAddress mac;
    public final GidTable gids;
    public final Mtu activeMtu;
    public final Fabric fabric;
    public final Clock clock;
    public final long nodeGuid;
    public final DeviceAttr deviceAttr;
    public final PortAttr portAttr;
    public final MemoryRegionTable memoryRegions;
    /** The multicast groups QPs of this port are attached to ({@code ibv_attach_mcast}). */
    public final MulticastGroups multicast = new MulticastGroups(this);
    /** The QPN of QP slot 0, from the {@link KeySource}: 17 on the deterministic fabric, random elsewhere. */
    private final int qpnBase;
    public final EmulatedDevice device;
    /**
     * The transmit buffer the next frame is built in ({@link #tx()}): the fabric may keep it, handing
     * back another ({@link FabricPort#transmitHandingOver}).
     */
    private byte[] tx = new byte[Fabric.MAX_FRAME_LENGTH];
    private final PacketWriter writer = new PacketWriter();
    /** Whether the frame {@link #beginFrame} started reaches nothing but an RNIC, unread: it may leave out its ICRC and its payload. */
    private boolean framesReachOnlyRnics;
    /** What a frame sent by reference points at: filled by {@link #payloadByReference}, copied by the fabric. */
    private final PayloadReference outgoingPayload = new PayloadReference();
    /** Where the payload of the frame being received is, when its sender left it in its memory; else null. */
    private PayloadReference incomingPayload;
    /** The UDP source port of every frame, or -1 for the QP's (rxe's per-QP flow). */
    private final int fixedSourcePort;
    /** Identification 0 on every IPv4 frame (what Linux sends for a DF datagram of an unconnected socket). */
    private final boolean zeroIpv4Identification;
    private int ipv4Identification;
    private final PacketInfo rx = new PacketInfo();
    private final NeighborTable neighbors;
    private final NetworkPaths paths = new NetworkPaths();
    private final FabricPort port;
    private final long[] counters = new long[RnicCounter.values().length];
    private final long[] decodeDrops = new long[DropReason.values().length];
    /** The IPv4 address (GID 1's), or null when no GID is IPv4-mapped. */
    private final byte[] ipv4;
    /** The IPv6 addresses among the GIDs besides GID 0's fe80::EUI-64, which is checked by the node GUID. */
    private final byte[][] ipv6;
    /** The link frames take instead of the fabric's switch, or null (in-process). */
    private final ExternalLink link;

    private EmulatedQp[] qps = new EmulatedQp[8];
    /**
     * {@code responders[i]} is {@code qps[i]}'s responder, which a request is handed to: found by the QP number beside
     * its QP rather than through it, so that at thousands of QPs, where both are cold, the CPU fetches the two
     * together instead of one after the other (issue 17's scale benchmark; bench/RESULTS.md, tenth session).
     */
    private Responder[] responders = new Responder[8];
    private int liveQps;
    private int nextQpIndex;
    /** The node's management agent on QP 1, or null: QP 1's packets are then dropped as to an unknown QP. */
    private GsiReceiver gsi;
    private final ArrayDeque<EmulatedQp> runQueue = new ArrayDeque<>();
    /** QPs posted to without the fabric lock (a threaded fabric's {@code ibv_post_send}), answered by the duty cycle. */
    private final Doorbells<EmulatedQp> doorbells = new Doorbells<>();
    private static final Consumer<EmulatedQp> ANSWER_DOORBELL = EmulatedQp::doorbellRang;
    private final QpTimers<EmulatedQp> timers = new QpTimers<>();
    /** QPs whose READ responses wait for room in the link's transmit queue. */
    private final List<EmulatedQp> waitingForLinkRoom = new ArrayList<>();
    private boolean linkRoomAsked;
    private long peakReadFramesQueued;
    /** Run by the link, on its thread, when its queue has drained: the waiting READs go on. */
    private final Runnable linkHasRoom = this::linkHasRoom;
    /** What the device is where devices differ: its limits and rules (e.g. what retry_cnt 7 means). */
    public final DeviceModel model;
    /**
     * Whether the process using the device holds CAP_NET_RAW: the kernel then lets it set a controlled
     * Q_Key (bit 31) at modify (uverbs_cmd.c modify_qp). False unless {@code SoftRnic.Builder.capNetRaw}.
     */
    public final boolean capNetRaw;

    /**
     * A node with the GID table given; with a {@code link}, frames go to the link rather than the
     * fabric's switch (the node is one of the fabric's agents, not a port on it) and come back
     * through the {@link DatagramReceiver} the link is handed. Memory keys and QP numbers come from
     * {@code keys} ({@link KeySource#forFabric} picks by the fabric).
     */
    public Rnic(Fabric fabric, String name, MacAddress mac, GidTable gids, Mtu activeMtu,
         DeviceModel model, ExternalLink link, KeySource keys, boolean capNetRaw) {
        this.capNetRaw = capNetRaw;
        this.memoryRegions = new MemoryRegionTable(model.limits().maxMr(), keys, model);
        this.qpnBase = keys.qpnBase();
        this.model = model;
        this.name = name;
        this.mac = mac;
        this.fabric = fabric;
        this.clock = fabric.clock();
        this.activeMtu = activeMtu;
        this.gids = gids;
        this.link = link;
        this.nodeGuid = GidTable.eui64(mac);
        this.deviceAttr = model.limits().deviceAttr(nodeGuid, DeviceCapabilities.of(model));
        this.portAttr = model.limits().portAttr(activeMtu);
        this.fixedSourcePort = link == null ? -1 : link.udpSourcePort();
        this.zeroIpv4Identification = link != null && link.zeroIpv4Identification();
        boolean flushIcrcAsRxe = model.has(Quirk.RC_FLUSH_ICRC_COUNTS_ITS_HEADERS_TWICE);
        writer.flushIcrcAsRxe(flushIcrcAsRxe);
        rx.flushIcrcAsRxe(flushIcrcAsRxe);
        byte[] v4 = null;
        List<byte[]> v6 = new ArrayList<>();
        for (int i = 0; i < gids.size(); i++) {
            Gid gid = gids.get(i);
            byte[] raw = gid.raw();
            if (gid.isIpv4Mapped()) {
                if (v4 == null) {
                    v4 = Arrays.copyOfRange(raw, 12, 16);
                }
            } else {
                v6.add(raw);
            }
        }
        this.ipv4 = v4;
        this.ipv6 = v6.toArray(new byte[0][]);
        this.device = new EmulatedDevice(this);
        if (link == null) {
            this.neighbors = NeighborTable.of(fabric);
            for (Gid gid : gids.all()) {
                neighbors.add(gid, mac.value());
            }
            this.port = fabric.attach(mac, this);
        } else {
            this.neighbors = null;
            this.port = null;
            link.flushIcrcAsRxe(flushIcrcAsRxe);
            link.attached(this::onDatagram);
        }
        fabric.addAgent(this);
    }

    // ---- API calls: the fabric lock, and deterministic progress --------------------------

    public <T> T call(Supplier<T> action) {
        return fabric.locked(action);
    }

    public void run(Runnable action) {
        fabric.locked(action);
    }

    /** Allocation-free form for hot paths: pass a static method reference. */
    public <A, B> void run(BiConsumer<A, B> action, A first, B second) {
        fabric.locked(action, first, second);
    }

    /** Allocation-free form for hot paths: pass a static method reference. */
    public <A, B> int callAsInt(ToIntBiFunction<A, B> action, A first, B second) {
        return fabric.lockedAsInt(action, first, second);
    }

    /**
     * Before an API call looks for results: a deterministic fabric runs until nothing is pending
     * (from inside the fabric's own dispatch this does nothing); a threaded one is only woken.
     * A fabric that cannot become idle — a QP retrying RNR forever (rnr_retry 7, IBTA C9-141) —
     * is run to the fabric's limits, and then the call looks anyway: retrying is not an error.
     */
    public void drive() {
        if (fabric.isDeterministic()) {
            try {
                fabric.runUntilIdle();
            } catch (RunLimitExceededException stillBusy) {
                // Nothing is lost: the retries go on at the next call.
            }
        }
    }

    /**
     * From a CQ poll that found nothing: a link whose receive is polled reads its sockets on this thread
     * ({@link ExternalLink#pollReceive}); not from inside a fabric callback, whose lock the link's
     * other reader may be waiting for.
     *
     * @return the datagrams the link handed over, or -1 when nothing was polled
     */
    public int pollLink() {
        if (link == null || !link.receiveIsPolled() || fabric.isLockHeldByCurrentThread()) {
            return -1;
        }
        return link.pollReceive();
    }

    /**
     * After a post gave the requester work. On a link whose receive the application polls
     * ({@link ExternalLink#receiveIsPolled}) the requester runs now, on the caller's thread: the application
     * is a poller and its thread the one running (as rxe runs its requester task inline); a wake-up of the
     * event loop would put a thread hand-off on the path of every message. Otherwise the loop is woken.
     */
    public void sendPosted() {
        if (link != null && link.receiveIsPolled()) {
            fabric.runNow();
        } else {
            fabric.wakeUp();
        }
    }

    /**
     * After a post without the fabric lock published its WQEs: the next duty cycle flushes or sends them
     * ({@link EmulatedQp#doorbellRang}). Only the ring that put the QP on the doorbells runs or wakes the loop;
     * a QP rung already is answered by the cycle its first ring asked for.
     */
    public void ringDoorbell(EmulatedQp qp) {
        if (doorbells.ring(qp.doorbell)) {
            sendPosted();
        }
    }

    /** After an API call gave the RNIC work: the threaded event loop should look soon. */
    public void wakeUp() {
        fabric.wakeUp();
    }

    public boolean isDeterministic() {
        return fabric.isDeterministic();
    }

    // ---- queue pairs ---------------------------------------------------------------------

    /** Installs the node's agent on QP 1 (once, when the node is made). */
    public void attachGsi(GsiReceiver receiver) {
        if (gsi != null) {
            throw new IllegalStateException(name + " has a QP 1 agent already");
        }
        gsi = receiver;
    }

    /** {@return the node's agent on QP 1, or null} */
    public GsiReceiver gsi() {
        return gsi;
    }

    public int allocateQpn(EmulatedQp qp) {
        int maxQp = model.limits().maxQp();
        if (liveQps >= maxQp) {
            throw new VerbsException(Errno.ENOMEM, "ibv_create_qp: the device's " + maxQp + " QPs are in use");
        }
        // Cyclic allocation (as rxe's pool): a closed QP's number is not reused at once, so late
        // packets for it are dropped rather than delivered to a stranger.
        int index = nextQpIndex;
        while (index < qps.length && qps[index] != null) {
            index++;
        }
        if (index >= qps.length) {
            int free = firstFreeIndex();
            if (free >= 0 && qps.length >= 4096) {
                index = free;
            } else {
                qps = Arrays.copyOf(qps, qps.length * 2);
                responders = Arrays.copyOf(responders, qps.length);
            }
        }
        qps[index] = qp;
        nextQpIndex = index + 1;
        liveQps++;
        return qpnBase + index;
    }

    /** The responder of the QP that {@link #allocateQpn} numbered {@code qpn}: set before its first packet can come. */
    public void responderMade(int qpn, Responder responder) {
        responders[qpn - qpnBase] = responder;
    }

    private int firstFreeIndex() {
        for (int i = 0; i < qps.length; i++) {
            if (qps[i] == null) {
                return i;
            }
        }
        return -1;
    }

    public void releaseQpn(int qpn) {
        int index = indexOf(qpn);
        if (index >= 0) {
            timers.remove(qps[index]);
            qps[index] = null;
            responders[index] = null;
            liveQps--;
        }
    }

    /** {@return where QP number {@code qpn} is in {@link #qps} and {@link #responders}, or -1 when there is no such QP} */
    private int indexOf(int qpn) {
        int index = qpn - qpnBase;
        return index >= 0 && index < qps.length && qps[index] != null ? index : -1;
    }

    /**
     * Puts a QP on the run queue for its requester (and whatever its responder owes); its
     * {@link EmulatedQp#doWork} runs in the next duty cycle.
     */
    public void schedule(EmulatedQp qp) {
        qp.requesterDue = true;
        scheduleResponder(qp);
    }

    /**
     * Puts a QP on the run queue for what its responder owes alone (an ACK, READ responses), as rxe
     * schedules its responder task apart from its requester task: the duty cycle then leaves the
     * requester's objects alone.
     */
    public void scheduleResponder(EmulatedQp qp) {
        if (!qp.scheduled) {
            qp.scheduled = true;
            runQueue.addLast(qp);
        }
    }

    /** A QP armed, moved or cleared a timer (the ACK timer moves on every response): it is placed by its deadline. */
    public void timerChanged(EmulatedQp qp) {
        timers.changed(qp);
    }

    // ---- the duty cycle --------------------------------------------------------------------

    @Override
    public int doWork(long nowNanos) {
        if (link == null) {
            return dutyCycle(nowNanos);
        }
        link.beginBurst();
        try {
            return dutyCycle(nowNanos);
        } finally {
            link.endBurst();
        }
    }

    private int dutyCycle(long nowNanos) {
        int work = doorbells.answer(ANSWER_DOORBELL);
        for (int i = 0, due = timers.takeDue(nowNanos); i < due; i++) {
            timers.due(i).onTimer(nowNanos); // re-registers the QP if a timer is still armed
            work++;
        }
        for (int n = runQueue.size(); n > 0; n--) {
            EmulatedQp qp = runQueue.pollFirst();
            qp.scheduled = false;
            work += qp.doWork(nowNanos);
        }
        return work;
    }

    @Override
    public long nextDeadlineNanos() {
        return runQueue.isEmpty() && !doorbells.pending()
                ? timers.earliest() : Math.min(clock.nanoTime(), timers.earliest());
    }

    @Override
    public void onFrame(byte[] frame, int offset, int length, long nowNanos) {
        count(RnicCounter.FRAMES_RECEIVED);
        receive(rx.parseFrame(frame, offset, length), nowNanos);
    }

    /** Frames from this fabric's RNICs may come without their ICRC: {@link #beginFrame} leaves it out when it can. */
    @Override
    public boolean takesFramesWithoutIcrc() {
        return true;
    }

    /**
     * A frame an RNIC built and nobody changed: parsed with every check but the ICRC's, which a real
     * RNIC leaves to hardware and which nothing on the way could have broken.
     */
    @Override
    public void onUnchangedFrame(byte[] frame, int offset, int length, long nowNanos) {
        count(RnicCounter.FRAMES_RECEIVED);
        receive(rx.parseTrustedFrame(frame, offset, length), nowNanos);
    }

    /**
     * An unchanged frame whose payload is still in its sender's memory: placed from there. If that region was
     * deregistered or invalidated, or its arena closed, since the frame left, the frame is lost — the memory is
     * never read again, as a frame whose DMA read failed never leaves an RNIC — and the sender's retransmission
     * finds the region gone and fails its WQE (LOC_PROT_ERR).
     */
    @Override
    public void onUnchangedFrame(byte[] frame, int offset, int length, long nowNanos, PayloadReference payload) {
        receiveByReference(frame, offset, length, nowNanos, payload, false);
    }

    /**
     * A train's next packet: if {@link #rx} still holds the parse of the packet before it — the same array, a
     * MIDDLE packet that passed, the same opcode — that parse is this packet's too (its PSN and AckReq are read
     * from the bytes, the rest is the same), and the packet goes on from there; otherwise it is parsed as any other.
     */
    @Override
    public void onNextPacketOfTrain(byte[] frame, int offset, int length, long nowNanos, PayloadReference payload) {
        boolean parsed = rx.buffer() == frame && rx.frameOffset() == offset && rx.dropReason() == null
                && rx.opcode() != null && rx.opcode().position() == Position.MIDDLE
                && (frame[rx.bthOffset()] & 0xFF) == rx.opcode().code(); // the LAST that ends a train: parsed
        receiveByReference(frame, offset, length, nowNanos, payload, parsed);
    }

    private void receiveByReference(byte[] frame, int offset, int length, long nowNanos, PayloadReference payload,
                                    boolean parsed) {
        if (!payload.isReadable()) {
            count(RnicCounter.FRAMES_RECEIVED);
            count(RnicCounter.DROPPED_SOURCE_GONE);
            return;
        }
        incomingPayload = payload;
        try {
            if (parsed) {
                count(RnicCounter.FRAMES_RECEIVED);
                if (!placedAsNextOfTrain(payload)) {
                    receive(true, nowNanos);
                }
            } else {
                onUnchangedFrame(frame, offset, length, nowNanos);
            }
        } finally {
            incomingPayload = null;
        }
    }

    /**
     * A train's next packet placed by its QP's responder as the continuation of the packet before
     * ({@link org.roce4j.emulator.transport.Responder#placeNextOfTrain}). The checks of {@link #receive} and
     * {@link EmulatedQp#receive} read the headers this packet shares with that one and compare them with this RNIC's
     * addresses (set once) and the QP's type, path and state, which the responder's test covers: a packet it placed
     * passed them all, and the QP was not modified since.
     */
    private boolean placedAsNextOfTrain(PayloadReference payload) {
        int index = indexOf(rx.destQp());
        return index >= 0 && responders[index].placeNextOfTrain(rx, payload);
    }

    /**
     * What every received packet goes through once parsed into {@link #rx}, from the fabric or a
     * link: malformed, not for one of our GIDs, or a CNP (no congestion control here) is dropped
     * and counted; the rest is delivered to its QP.
     */
    private void receive(boolean parsed, long nowNanos) {
        PacketInfo packet = rx;
        if (!parsed) {
            count(RnicCounter.DROPPED_MALFORMED);
            decodeDrops[packet.dropReason().ordinal()]++;
            return;
        }
        if (!isAddressedToUs(packet)) {
            count(RnicCounter.DROPPED_NOT_OUR_GID);
            return;
        }
        if (packet.opcode().transport() == Transport.CNP) {
            count(RnicCounter.DROPPED_WRONG_TRANSPORT);
            return;
        }
        deliver(packet, nowNanos);
    }

    /**
     * The receive entry of the {@link ExternalLink}: a datagram whose ICRC the link handled, parsed
     * from BTH on ({@link PacketInfo#parseUdpPayload}); the IP header the link wrote before it gives
     * the addresses. Then the same checks and dispatch as {@link #onFrame}.
     */
    private void onDatagram(byte[] buffer, int ipOffset, int bthOffset, int end, IcrcStatus icrc) {
        fabric.locked(() -> {
            long nowNanos = clock.nanoTime();
            count(RnicCounter.FRAMES_RECEIVED);
            if (icrc == IcrcStatus.INVALID) {
                count(RnicCounter.DROPPED_MALFORMED);
                decodeDrops[DropReason.BAD_ICRC.ordinal()]++;
                return;
            }
            link.beginBurst(); // a READ request's responses may leave together
            try {
                receive(rx.parseUdpPayload(buffer, ipOffset, bthOffset, end - bthOffset), nowNanos);
            } finally {
                link.endBurst();
            }
        });
        fabric.runNow(); // the responder may owe an ACK, the requester may have room again: send them now
    }

    private void deliver(PacketInfo packet, long nowNanos) {
        if (packet.destQp() == MadHeader.GSI_QPN && gsi != null) {
            gsi.receive(packet, nowNanos);
            return;
        }
        if (packet.destQp() == MulticastGroups.MULTICAST_QPN) {
            multicast.deliver(packet, nowNanos); // rxe_rcv: bth_qpn == IB_MULTICAST_QPN
            return;
        }
        int index = indexOf(packet.destQp());
        if (index < 0) {
            count(RnicCounter.DROPPED_UNKNOWN_QP);
            return;
        }
        qps[index].receive(packet, nowNanos, responders[index]);
    }

    /**
     * {@return whether an IPv4 packet was sent by this device to itself} Its source is our address: rxe
     * hands such a packet from its transmit path straight to its receive path ({@code rxe_net.c
     * rxe_loopback}, chosen for a destination that is the device's own) instead of the network stack.
     * A multicast packet is not: its group MAC is not the device's, so it goes through ip_local_out and the
     * IP stack loops it back (with its header checksum computed, as rxe0 shows).
     */
    public boolean loopedBack(PacketInfo packet) {
        int src = packet.ipSourceOffset();
        return packet.ipVersion() == 4 && ipv4 != null && !MulticastGroups.isMulticastDestination(packet)
                && Arrays.equals(packet.buffer(), src, src + 4, ipv4, 0, 4);
    }

    /** rxe_recv.c {@code rxe_chk_dgid}: the destination IP must be one of the port's GIDs, or a multicast address. */
    private boolean isAddressedToUs(PacketInfo packet) {
        if (MulticastGroups.isMulticastDestination(packet)) {
            return true;
        }
        byte[] b = packet.buffer();
        int dst = packet.ipDestinationOffset();
        if (packet.ipVersion() == 4) {
            return ipv4 != null && Arrays.equals(b, dst, dst + 4, ipv4, 0, 4);
        }
        // Every IPv6 GID, GID 0 too: an interface's link-local address is the MAC's EUI-64 only by
        // default — stable-privacy addresses, or a bridge whose MAC changed when ports joined, differ.
        for (byte[] address : ipv6) {
            if (Arrays.equals(b, dst, dst + 16, address, 0, 16)) {
                return true;
            }
        }
        return false;
    }

    /** rxe_qp.c: {@code RXE_ROCE_V2_SPORT + (hash_32_generic(qpn, 14) & 0x3fff)}, one UDP flow per QP. */
    public static int sourcePortOf(int qpn) {
        return SOURCE_PORT_BASE + (((qpn * GOLDEN_RATIO_32) >>> (32 - 14)) & 0x3FFF);
    }

    /**
     * Starts a frame in {@link #tx} along {@code path}, as rxe's {@code rxe_prepare} and
     * {@code prepare4}/{@code prepare6} build an skb: Ethernet from this port, then IPv4 (DF set,
     * Identification from a per-node counter — or 0 where the link says so — TOS and TTL from the
     * address vector) or IPv6, then UDP to port 4791 from the QP's source port (or the link's).
     * The caller goes on with the BTH and finishes the frame; {@link #transmit} sends it.
     */
    public PacketWriter beginFrame(NetworkPath path, int sourcePort) {
        // ICRC offload: on a fabric where nothing reads frames on the way, only the receiving RNIC would
        // look at the ICRC, and it takes the frame unchecked (onUnchangedFrame). A link always needs it.
        framesReachOnlyRnics = link == null && !port.needsIcrc();
        writer.offloadIcrc(framesReachOnlyRnics);
        writer.ethernet(tx, 0, destinationMac(path), mac.value());
        if (path.ipv6) {
            writer.ipv6(path.trafficClass, path.flowLabel, path.hopLimit, path.sourceIp, path.destinationIp);
        } else {
            int identification = 0;
            if (!zeroIpv4Identification) {
                identification = ipv4Identification;
                ipv4Identification = (ipv4Identification + 1) & 0xFFFF;
            }
            // DF: RoCEv2 packets are never fragmented.
            writer.ipv4(path.trafficClass, identification, true, path.hopLimit, path.sourceIp, path.destinationIp);
        }
        return writer.udp(fixedSourcePort >= 0 ? fixedSourcePort : sourcePort);
    }

    /** {@return the array {@link #beginFrame} builds the frame in; valid until {@link #transmit}} */
    public byte[] tx() {
        return tx;
    }

    /** Sends the frame built in {@link #tx}. */
    public void transmit(int length) {
        count(RnicCounter.FRAMES_SENT);
        if (link != null) {
            link.transmit(tx, 0, length);
        } else {
            tx = port.transmitHandingOver(tx, length);
        }
    }

    /**
     * {@return a reference to fill with where the payload of the frame {@link #beginFrame} started is, or null
     * when that frame must carry its own bytes} Only on the in-process fabric while nothing but RNICs reads
     * frames (as for the ICRC's offload): the payload then goes from the sender's memory straight to the
     * receiver's when the frame is delivered — one copy, as an RNIC's DMA moves it ({@link PayloadReference}).
     */
    public PayloadReference payloadByReference() {
        return framesReachOnlyRnics ? outgoingPayload : null;
    }

    /** Sends the frame built in {@link #tx}, its payload where {@code payload} (from {@link #payloadByReference}) says. */
    public void transmit(int length, PayloadReference payload) {
        int packets = payload.packets();
        count(RnicCounter.FRAMES_SENT, packets);
        if (!zeroIpv4Identification) {
            ipv4Identification = (ipv4Identification + packets - 1) & 0xFFFF; // beginFrame numbered the first
        }
        tx = port.transmitHandingOver(tx, length, payload);
    }

    /** How much each packet of a train adds to the IPv4 Identification ({@link PayloadReference#train}): 0 or 1. */
    public int ipv4IdentificationStep() {
        return zeroIpv4Identification ? 0 : 1;
    }

    /** {@return where the payload of the packet being received is, if its sender left it in its memory; else null} */
    public PayloadReference incomingPayload() {
        return incomingPayload;
    }

    /**
     * After an attach or a detach, outside the fabric lock: a link joins the IP groups that have members
     * and leaves the others, as a host must for its kernel to deliver a group's datagrams (rxe0 receives
     * nothing from a group its host has not joined, see ibverbs/src/test/c/rxe-probe-multicast.c). The
     * link reads the groups when it is ready, so concurrent attaches converge on the last state.
     */
    public void multicastGroupsChanged() {
        if (link != null) {
            link.multicastGroups(() -> call(multicast::groupAddresses));
        }
    }

    // ---- back-pressure from the link ------------------------------------------------------

    /** How many READ responses may leave now: unlimited on the fabric, the room under {@link #READ_QUEUE_HIGH} on a link. */
    public int readResponseRoom() {
        return link == null ? Integer.MAX_VALUE : READ_QUEUE_HIGH - link.framesQueued();
    }

    /** After a turn of READ responses: how full the link's queue is, for {@link SoftRnic#peakReadFramesQueued}. */
    public void noteReadFramesQueued() {
        if (link != null) {
            peakReadFramesQueued = Math.max(peakReadFramesQueued, link.framesQueued());
        }
    }

    public long peakReadFramesQueued() {
        return peakReadFramesQueued;
    }

    /** The QP's READ found the link's queue full: it is scheduled again once the queue has drained. */
    public void waitForLinkRoom(EmulatedQp qp) {
        if (!waitingForLinkRoom.contains(qp)) {
            waitingForLinkRoom.add(qp);
        }
        if (!linkRoomAsked) {
            linkRoomAsked = true;
            link.whenQueuedAtMost(READ_QUEUE_LOW, linkHasRoom);
        }
    }

    private void linkHasRoom() {
        fabric.locked(this::resumeAfterLinkRoom);
        fabric.wakeUp();
    }

    private void resumeAfterLinkRoom() {
        linkRoomAsked = false;
        for (int i = 0; i < waitingForLinkRoom.size(); i++) {
            schedule(waitingForLinkRoom.get(i));
        }
        waitingForLinkRoom.clear();
    }

    /**
     * {@return whether a frame to {@code gid} has somewhere to go: a node of the fabric owns it (the
     * neighbour table, as ARP would answer), it is a multicast group, or — on a link — the host routes it}
     */
    public boolean canReach(Gid gid) {
        return link != null || gid.isMulticast() || neighbors.lookup(gid) >= 0;
    }

    /** {@return the link frames take instead of the fabric's switch, or null on the in-process fabric} */
    public ExternalLink link() {
        return link;
    }

    /**
     * {@return the path from {@code source} along {@code av}, shared with the QPs and AHs that have the same
     * one, its MAC resolved now}
     */
    public NetworkPath path(Gid source, AhAttr av) {
        NetworkPath path = paths.get(source, av, this::resolvesElsewhere);
        destinationMac(path);
        return path;
    }

    /** Whether a path's resolved MAC is no longer the one its neighbour has (a peer that came back elsewhere). */
    private boolean resolvesElsewhere(NetworkPath path) {
        return path.destinationMac >= 0 && link == null && !path.destinationGid.isMulticast()
                && neighbors.lookup(path.destinationGid) != path.destinationMac;
    }

    /** The MAC to send to for a path, resolving it on first use; broadcast when nobody has the GID. */
    public long destinationMac(NetworkPath path) {
        if (path.destinationMac < 0) {
            if (path.destinationGid.isMulticast()) {
                path.destinationMac = MulticastGroups.groupMac(path.destinationGid); // no neighbour: a group address
                return path.destinationMac;
            }
            if (link != null) {
                path.destinationMac = 0; // the link routes by IP address: no neighbour to look up
                return 0;
            }
            path.destinationMac = neighbors.lookup(path.destinationGid);
            if (path.destinationMac < 0) {
                count(RnicCounter.SEND_ERRORS); // no neighbour: the fabric drops it, as a failed route would
                return 0xFFFF_FFFF_FFFFL;
            }
        }
        return path.destinationMac;
    }

    // ---- counters --------------------------------------------------------------------------

    public void count(RnicCounter counter) {
        counters[counter.ordinal()]++;
    }

    public void count(RnicCounter counter, int times) {
        counters[counter.ordinal()] += times;
    }

    public long counter(RnicCounter counter) {
        return counters[counter.ordinal()];
    }

    public long dropped(DropReason reason) {
        return decodeDrops[reason.ordinal()];
    }

    /**
     * The port counters of the Verbs API, read from the same arrays as {@link #counter} and
     * {@link #dropped}: every {@link RnicCounter} by its port counter name (rxe's first), then
     * {@code icrc_errors}, then the frames that did not parse, per reason, as {@code dropped_<reason>}.
     */
    public PortCounters portCounters() {
        Map<String, Long> values = new LinkedHashMap<>();
        for (RnicCounter c : RnicCounter.values()) {
            values.put(c.portCounterName(), counters[c.ordinal()]);
        }
        values.put("icrc_errors", decodeDrops[DropReason.BAD_ICRC.ordinal()]);
        for (DropReason reason : DropReason.values()) {
            if (reason.appliesToRoceV2()) { // an RNIC parses RoCEv2 only: no LRH, GRH or VCRC drops to count
                values.put("dropped_" + reason.name().toLowerCase(Locale.ROOT), decodeDrops[reason.ordinal()]);
            }
        }
        return new PortCounters(DeviceLimits.PORT, values);
    }
}
