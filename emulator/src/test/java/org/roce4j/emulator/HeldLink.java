package org.roce4j.emulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;

import org.roce4j.wire.IcrcStatus;

/**
 * A test's {@link ExternalLink}: every frame sent waits in {@link #held} — the link's transmit
 * queue — until the test delivers it to another node's link, or drops it. Delivered frames are
 * handed over as ICRC-valid without a check (a test may patch their bytes).
 */
final class HeldLink implements ExternalLink {
    static final int BTH = 14 + 20 + 8; // Ethernet, IPv4, UDP

    final List<byte[]> held = new ArrayList<>();
    private DatagramReceiver receiver;
    private Runnable onDrained;
    private int drainedTo;

    @Override
    public int udpSourcePort() {
        return 4791;
    }

    @Override
    public boolean zeroIpv4Identification() {
        return true;
    }

    @Override
    public void attached(DatagramReceiver datagramReceiver) {
        this.receiver = datagramReceiver;
    }

    @Override
    public void transmit(byte[] frame, int offset, int length) {
        held.add(Arrays.copyOfRange(frame, offset, offset + length));
    }

    @Override
    public int framesQueued() {
        return held.size();
    }

    @Override
    public void whenQueuedAtMost(int frames, Runnable action) {
        drainedTo = frames;
        onDrained = action;
        runIfDrained();
    }

    /** Hands the first {@code count} held frames to {@code to}, except those whose index {@code drop} accepts. */
    void deliver(int count, HeldLink to, IntPredicate drop) {
        List<byte[]> frames = new ArrayList<>(held.subList(0, Math.min(count, held.size())));
        held.subList(0, frames.size()).clear();
        runIfDrained();
        for (int i = 0; i < frames.size(); i++) {
            if (!drop.test(i)) {
                to.receive(frames.get(i));
            }
        }
    }

    void deliverAll(HeldLink to) {
        deliver(held.size(), to, i -> false);
    }

    /** A frame arriving at this link, for its node. */
    void receive(byte[] frame) {
        receiver.onDatagram(frame, 14, BTH, frame.length, IcrcStatus.VALID);
    }

    private void runIfDrained() {
        if (onDrained != null && held.size() <= drainedTo) {
            Runnable action = onDrained;
            onDrained = null;
            action.run();
        }
    }

    static int psn(byte[] frame) {
        return (frame[BTH + 9] & 0xFF) << 16 | (frame[BTH + 10] & 0xFF) << 8 | frame[BTH + 11] & 0xFF;
    }

    static void setPsn(byte[] frame, int psn) {
        frame[BTH + 9] = (byte) (psn >>> 16);
        frame[BTH + 10] = (byte) (psn >>> 8);
        frame[BTH + 11] = (byte) psn;
    }

    static int opcode(byte[] frame) {
        return frame[BTH] & 0xFF;
    }
}
