package org.roce4j.emulator.fabric;

/**
 * Receives the frames addressed to a port. Called from the fabric's dispatching thread, holding
 * the fabric lock. What it throws is caught, counted and reported; the frame counts as delivered.
 */
@FunctionalInterface
public interface FrameReceiver {

    /**
     * One frame, {@code frame[offset .. offset+length)}, starting with the destination MAC.
     * The array is the fabric's and is reused as soon as this method returns: copy what must be
     * kept. Transmitting from here is allowed.
     *
     * @param nowNanos the fabric's time of delivery
     */
    void onFrame(byte[] frame, int offset, int length, long nowNanos);

    /**
     * {@return whether this receiver takes frames whose ICRC their sender left out, through
     * {@link #onUnchangedFrame}} While any attached receiver does not, every sender computes the ICRC.
     */
    default boolean takesFramesWithoutIcrc() {
        return false;
    }

    /**
     * A frame as {@link #onFrame} gets it, sent with {@link FabricPort#transmitUnchanged} and changed by
     * nobody on the way: its ICRC (zero where the sender left it out) need not be checked.
     */
    default void onUnchangedFrame(byte[] frame, int offset, int length, long nowNanos) {
        onFrame(frame, offset, length, nowNanos);
    }

    /**
     * An unchanged frame whose payload is still in its sender's memory ({@link PayloadReference}, valid
     * during this call only). This default copies the payload into the frame and goes on as
     * {@link #onUnchangedFrame(byte[], int, int, long)}; an RNIC places it from where it is.
     */
    default void onUnchangedFrame(byte[] frame, int offset, int length, long nowNanos, PayloadReference payload) {
        payload.copyInto(frame, offset);
        onUnchangedFrame(frame, offset, length, nowNanos);
    }

    /**
     * A train's packet after its first ({@link PayloadReference#train}), in the array the one before it came in,
     * which the fabric rewrote in place: only the PSN, AckReq and the IPv4 Identification differ from it. This
     * default takes it as any other; a receiver that kept its parse of the packet before may go on from it.
     */
    default void onNextPacketOfTrain(byte[] frame, int offset, int length, long nowNanos, PayloadReference payload) {
        onUnchangedFrame(frame, offset, length, nowNanos, payload);
    }
}
