package org.roce4j.emulator.fabric;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.PacketWriter;
import org.roce4j.wire.pcap.CaptureWriter;

/**
 * Forwards frames between ports by destination MAC, as one Ethernet switch would: copies each
 * transmitted frame, queues it for its delivery time and hands it to the receiving port then.
 * Keeps the frame counters and the tap. Not thread-safe: the fabric lock guards it.
 *
 * <p>The tap is where the wire is: a frame is captured as it reaches its port, at that time and
 * with the bytes the fault injector left (a corrupted frame is captured corrupted, a duplicated one
 * twice, a held-back one when it arrives), and a frame the injector dropped, or that no port has
 * the destination of, is captured as it was sent. In a pcapng capture each frame the injector
 * touched carries comments saying what it did ({@link FrameFilter#lastFrameFaults()}), and each
 * request the requester sent again says "retransmission" ({@link RetransmissionMarks}); a frame
 * flooded to a multicast group is captured once per port it reaches, but for the copy the sender
 * loops back to itself, which no wire carries.
 */
final class FrameSwitch {

    /** The comment on a frame sent to a MAC no port has (the fabric's "no neighbour" broadcast among them). */
    private static final List<String> NO_PORT = List.of("lost: no port has its destination MAC");

    /** Queued in place of the notes for a frame no tap is to see; compared by identity. */
    private static final List<String> NOT_ON_THE_WIRE = List.of("not on the wire");

    /**
     * A frame handed over this long or longer is queued as it is rather than copied
     * ({@link FabricPort#transmitHandingOver}): below it the copy costs less than keeping a whole
     * transmit-sized array per queued ACK.
     */
    static final int HAND_OVER_MIN_LENGTH = 1024;

    /** Destination MAC, source MAC, EtherType: shorter is no Ethernet frame. */
    static final int ETHERNET_HEADER_LENGTH = 14;

    private final PortTable ports = new PortTable();
    /** The ports in the order they were attached: where a multicast frame goes, in a deterministic order. */
    private final List<AttachedPort> portsInOrder = new ArrayList<>();
    private final DeliveryQueue queue = new DeliveryQueue(64);
    private final FramePool pool = new FramePool();
    /** Filled for each delivery of a frame sent by reference ({@link PayloadReference}: reused, allocates nothing). */
    private final PayloadReference delivering = new PayloadReference();
    /** Filled for each packet of a train routed one by one ({@link #routeEachPacket}). */
    private final PayloadReference onePacket = new PayloadReference();
    /** Completes, for a tap that started late, the frames sent without their ICRC ({@link #captureAsOnTheWire}). */
    private final IcrcCalculator icrc = new IcrcCalculator();
    private FrameFilter filter = FrameFilter.PASS_ALL;
    /** Attached ports whose receivers take no frame without its ICRC. */
    private int portsNeedingIcrc;

    private CaptureWriter tap;
    /** Which sent frames are retransmissions, for the tap's comments; null without a tap. */
    private RetransmissionMarks retransmissions;
    /** Added to fabric time to get pcap's nanoseconds since the epoch; 0 for virtual time. */
    private final long tapEpochOffsetNanos;

    private boolean closed;

    private long transmitted;
    private long delivered;
    private long droppedUnknownDestination;
    private long droppedMalformed;
    private long droppedByFilter;
    private long duplicatedByFilter;
    private long droppedClosed;
    private long tapWriteFailures;

    FrameSwitch(long tapEpochOffsetNanos) {
        this.tapEpochOffsetNanos = tapEpochOffsetNanos;
    }

    AttachedPort attach(Fabric fabric, MacAddress mac, FrameReceiver receiver) {
        AttachedPort port = new AttachedPort(fabric, mac, receiver);
        if (ports.get(mac.value()) != null) {
            throw new IllegalArgumentException("a port with MAC " + mac + " is already attached");
        }
        ports.put(mac.value(), port);
        portsInOrder.add(port);
        if (!receiver.takesFramesWithoutIcrc()) {
            portsNeedingIcrc++;
        }
        return port;
    }

    void filter(FrameFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
    }

    void tap(Path pcapFile) throws IOException {
        if (tap != null) {
            throw new IllegalStateException("the fabric already has a pcap tap");
        }
        tap = CaptureWriter.create(pcapFile);
        retransmissions = new RetransmissionMarks();
    }

    /** {@link FabricPort#needsIcrc()}: a tap or a filter reads frames, or a receiver checks every ICRC. */
    boolean needsIcrc() {
        return tap != null || filter != FrameFilter.PASS_ALL || portsNeedingIcrc > 0;
    }

    /**
     * The one path every transmitted frame takes: validate, look up the destination, copy, let the
     * {@link FrameFilter} decide (the fault-injection point), queue, and queue a second copy when
     * the filter asks for a duplicate. Never throws: each way a frame can fail is a counter.
     *
     * @param unchanged whether the sender vouches the frame is as it built it ({@link FabricPort#transmitUnchanged});
     *                  with no filter installed it reaches its receiver so
     */
    void route(byte[] frame, int offset, int length, long nowNanos, long linkDelayNanos, boolean unchanged) {
        route(frame, offset, length, nowNanos, linkDelayNanos, unchanged, false, null);
    }

    /**
     * Routes {@code frame[0 .. length)} as {@link #route} does, keeping the array itself in the queue when
     * the frame goes to one port and is long enough ({@link #HAND_OVER_MIN_LENGTH}).
     *
     * @param payload where the payload still is, or null when the frame holds it ({@link PayloadReference})
     * @return the array the sender builds its next frame in: {@code frame} if it was copied, else a pooled one
     */
    byte[] routeHandingOver(byte[] frame, int length, long nowNanos, long linkDelayNanos, PayloadReference payload) {
        boolean kept = route(frame, 0, length, nowNanos, linkDelayNanos, true, length >= HAND_OVER_MIN_LENGTH,
                payload);
        return kept ? pool.take(Fabric.MAX_FRAME_LENGTH) : frame;
    }

    /** @return whether the switch kept {@code frame} itself (only if {@code mayKeep}) */
    private boolean route(byte[] frame, int offset, int length, long nowNanos, long linkDelayNanos,
                          boolean unchanged, boolean mayKeep, PayloadReference payload) {
        int packets = payload == null ? 1 : payload.packets();
        transmitted += packets;
        if (closed) {
            droppedClosed += packets;
            return false;
        }
        if (frame == null || offset < 0 || length < ETHERNET_HEADER_LENGTH
                || length > Fabric.MAX_FRAME_LENGTH || offset > frame.length - length) {
            droppedMalformed += packets;
            return false;
        }
        if (packets > 1 && (needsIcrc() || isMulticast(mac(frame, offset)))) {
            transmitted -= packets; // counted again, one by one
            routeEachPacket(frame, offset, length, nowNanos, linkDelayNanos, unchanged, payload);
            return false;
        }
        if (payload != null && needsIcrc()) {
            payload.copyInto(frame, offset); // a reader on the way needs the bytes (the sender checked: not reached)
            payload = null;
        }
        List<String> marks = tap == null ? List.of() : retransmissions.onSent(frame, offset, length);
        long destinationMac = mac(frame, offset);
        if (isMulticast(destinationMac)) {
            // A switch floods a group address to every port; the sender's own port gets a copy too, as
            // the IP stack of a host that is a member of the group loops its own multicast back
            // (IP_MULTICAST_LOOP): each node then keeps what its attached QPs want.
            long sourceMac = mac(frame, offset + 6);
            if (payload != null) {
                payload.copyInto(frame, offset); // a UD SEND to a group: every member's copy needs the bytes
            }
            for (int i = 0; i < portsInOrder.size(); i++) {
                AttachedPort port = portsInOrder.get(i);
                forward(frame, offset, length, nowNanos, linkDelayNanos, port, port.mac().value() != sourceMac, marks,
                        unchanged, false, null);
            }
            return false;
        }
        AttachedPort destination = ports.get(destinationMac);
        if (destination == null) {
            droppedUnknownDestination += packets;
            capture(frame, offset, length, nowNanos, RetransmissionMarks.join(marks, NO_PORT));
            return false;
        }
        forward(frame, offset, length, nowNanos, linkDelayNanos, destination, true, marks, unchanged, mayKeep, payload);
        return mayKeep;
    }

    /**
     * A train ({@link PayloadReference#train}) that must go as frames after all — a reader on the way needs every
     * byte (the sender checked that none was there), or a group address floods each packet: its packets routed in
     * turn, each frame rewritten into the next ({@link PacketWriter#nextPacket}).
     */
    private void routeEachPacket(byte[] frame, int offset, int length, long nowNanos, long linkDelayNanos,
                                 boolean unchanged, PayloadReference train) {
        int packets = train.packets();
        PayloadReference.Source source = train.source();
        long sourceOffset = train.sourceOffset();
        int frameOffset = train.frameOffset();
        int packetLength = train.length();
        int identificationStep = train.identificationStep();
        boolean ackReqOnLast = train.ackReqOnLast();
        boolean endsMessage = train.endsMessage();
        for (int i = 0; i < packets; i++) {
            if (i > 0) {
                boolean last = i == packets - 1;
                PacketWriter.nextPacket(frame, offset, identificationStep, last && ackReqOnLast, last && endsMessage);
            }
            onePacket.set(source, sourceOffset + (long) i * packetLength, frameOffset, packetLength);
            route(frame, offset, length, nowNanos, linkDelayNanos, unchanged, false, onePacket);
        }
    }

    /** An Ethernet group address that is not the broadcast (which the fabric uses for "no neighbour": lost). */
    static boolean isMulticast(long mac) {
        return (mac & 0x0100_0000_0000L) != 0 && mac != 0xFFFF_FFFF_FFFFL;
    }

    /**
     * @param onTheWire false for the copy a multicast sender loops back to itself: no wire carries it, no tap sees it
     * @param marks the tap's comments on the frame as sent ({@link RetransmissionMarks})
     * @param unchanged whether the sender vouches the frame is as it built it
     * @param keep whether to queue {@code frame} itself (offset 0) rather than a copy
     * @param payload where the payload still is (no filter, no tap), or null
     */
    private void forward(byte[] frame, int offset, int length, long nowNanos, long linkDelayNanos,
                         AttachedPort destination, boolean onTheWire, List<String> marks, boolean unchanged,
                         boolean keep, PayloadReference payload) {
        byte[] copy = frame;
        if (!keep) {
            copy = pool.take(length);
            System.arraycopy(frame, offset, copy, 0, length);
        }
        long deliveryNanos = filter.deliveryTimeNanos(copy, length, nowNanos, nowNanos + linkDelayNanos);
        if (deliveryNanos == FrameFilter.DROP) {
            droppedByFilter++;
            if (onTheWire) {
                capture(copy, 0, length, nowNanos, RetransmissionMarks.join(marks, filter.lastFrameFaults()));
            }
            pool.give(copy);
            return;
        }
        deliveryNanos = Math.max(deliveryNanos, nowNanos);
        // A filter may have changed the bytes (a corrupting fault): then the receiver checks them all.
        // Both the filter and the tap are asked under the lock the sender built the frame under: what they say now
        // is what needsIcrc() told it.
        queue.add(deliveryNanos, copy, length, destination, tapNotes(onTheWire, marks, false),
                unchanged && filter == FrameFilter.PASS_ALL, unchanged && !needsIcrc(), payload);
        long duplicateNanos = filter.duplicateDeliveryTimeNanos(copy, length, nowNanos, deliveryNanos);
        if (duplicateNanos != FrameFilter.DROP) {
            duplicatedByFilter++;
            byte[] second = pool.take(length);
            System.arraycopy(copy, 0, second, 0, length);
            queue.add(Math.max(duplicateNanos, nowNanos), second, length, destination,
                    tapNotes(onTheWire, marks, true), false, false, null);
        }
    }

    /** What the queue keeps for the tap: nothing without one, the faults' notes, or that no tap is to see the frame. */
    private List<String> tapNotes(boolean onTheWire, List<String> marks, boolean duplicate) {
        if (tap == null) {
            return null; // the filter is not asked: its notes are text made on demand
        }
        if (!onTheWire) {
            return NOT_ON_THE_WIRE;
        }
        return RetransmissionMarks.join(marks, duplicate ? filter.lastDuplicateFaults() : filter.lastFrameFaults());
    }

    /** {@return when the next frame is due, or {@link Long#MAX_VALUE} if none is queued} */
    long earliestDeliveryTime() {
        return queue.earliestTime();
    }

    /**
     * Delivers the earliest queued frame to its port at {@code nowNanos}, which the caller has
     * checked is not before its time. A receiver that throws is reported; the frame still counts
     * as delivered, as a NIC that received it and then failed.
     */
    void deliverEarliest(long nowNanos, CallbackFailures failures) {
        int slot = queue.earliest();
        boolean trainGoesOn = queue.packets(slot) > 1;
        if (!trainGoesOn) {
            queue.removeEarliest();
        }
        byte[] frame = queue.buffer(slot);
        AttachedPort port = queue.destination(slot);
        try {
            delivered++;
            List<String> notes = queue.faultNotes(slot);
            if (notes != NOT_ON_THE_WIRE && tap != null) {
                captureAsOnTheWire(slot, frame, nowNanos, notes);
            }
            if (queue.continuesTrain(slot)) {
                port.receiver().onNextPacketOfTrain(frame, 0, queue.length(slot), nowNanos, queue.payload(slot, delivering));
            } else if (queue.payloadSource(slot) != null) {
                port.receiver().onUnchangedFrame(frame, 0, queue.length(slot), nowNanos, queue.payload(slot, delivering));
            } else if (queue.unchanged(slot)) {
                port.receiver().onUnchangedFrame(frame, 0, queue.length(slot), nowNanos);
            } else {
                port.receiver().onFrame(frame, 0, queue.length(slot), nowNanos);
            }
        } catch (RuntimeException | Error e) {
            failures.report(port, "receiver at " + nowNanos, e);
        } finally {
            if (trainGoesOn && !closed) { // a receiver that closed the fabric emptied the queue
                queue.nextPacketOfTrain(slot);
            } else {
                queue.free(slot);
                pool.give(frame);
            }
        }
    }

    /**
     * Captures the frame in {@code slot} as the wire carries it. One sent while nothing but RNICs read frames — the
     * tap started after it left — may lack what only a reader needs: its ICRC, left to the receiver's trust, and its
     * payload, still in its sender's memory. The tap gets a copy with both, as the frame would have been sent with
     * the tap there; or nothing, when that memory is gone (such a frame is lost unread: it never left its sender).
     */
    private void captureAsOnTheWire(int slot, byte[] frame, long nowNanos, List<String> notes) {
        int length = queue.length(slot);
        if (!queue.sentUnread(slot)) {
            capture(frame, 0, length, nowNanos, notes);
            return;
        }
        PayloadReference payload = queue.payloadSource(slot) == null ? null : queue.payload(slot, delivering);
        if (payload != null && !payload.isReadable()) {
            return;
        }
        byte[] complete = pool.take(length);
        System.arraycopy(frame, 0, complete, 0, length);
        if (payload != null) {
            payload.copyInto(complete, 0);
        }
        PacketWriter.finishOffloaded(complete, 0, length, icrc);
        capture(complete, 0, length, nowNanos, notes);
        pool.give(complete);
    }

    /** Drops what is queued, closes the tap (flushing it); later frames are dropped as closed. */
    void close() throws IOException {
        closed = true;
        while (!queue.isEmpty()) {
            int slot = queue.earliest();
            droppedClosed += queue.packets(slot);
            queue.removeEarliest();
            pool.give(queue.buffer(slot));
            queue.free(slot);
        }
        if (tap != null) {
            CaptureWriter closing = tap;
            tap = null;
            closing.close();
        }
    }

    FabricCounters counters(long callbackFailures) {
        return new FabricCounters(transmitted, delivered, droppedUnknownDestination, droppedMalformed,
                droppedByFilter, droppedClosed, queue.size(), callbackFailures, tapWriteFailures,
                duplicatedByFilter);
    }

    FramePool pool() {
        return pool;
    }

    private void capture(byte[] frame, int offset, int length, long nowNanos, List<String> faults) {
        if (tap == null) {
            return;
        }
        try {
            // Fabric time: with virtual time the capture is the same byte for byte on every run.
            tap.write(nowNanos + tapEpochOffsetNanos, frame, offset, length, faults);
        } catch (IOException | RuntimeException e) {
            // A full disk must not stop the fabric; one failure ends the capture, counted.
            tapWriteFailures++;
            CallbackFailures.LOG_WARNING.accept("pcap tap write; the capture stops here", e);
            try {
                tap.close();
            } catch (IOException ignored) {
                // Already reported the first failure; the file is incomplete either way.
            }
            tap = null;
        }
    }

    /** {@return the MAC address at {@code frame[offset..offset+6)} as a number: 0 the destination, 6 the source} */
    static long mac(byte[] frame, int offset) {
        long mac = 0;
        for (int i = 0; i < 6; i++) {
            mac = mac << 8 | frame[offset + i] & 0xFF;
        }
        return mac;
    }
}
