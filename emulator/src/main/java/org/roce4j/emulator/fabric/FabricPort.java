package org.roce4j.emulator.fabric;

import org.roce4j.wire.MacAddress;

/** A node's attachment to the fabric: what an emulated RNIC holds to send frames and read time. */
public interface FabricPort {

    /** {@return the MAC address that frames must carry as destination to reach this port} */
    MacAddress mac();

    /**
     * Sends {@code frame[offset .. offset+length)}, an Ethernet frame starting with the
     * destination MAC. The bytes are copied before this returns, so the caller may reuse the
     * array. Never throws: a frame that cannot be delivered (unknown destination, shorter than an
     * Ethernet header, longer than {@link Fabric#MAX_FRAME_LENGTH}, a slice outside the array,
     * a closed fabric) is dropped and counted in {@link Fabric#counters()}.
     */
    void transmit(byte[] frame, int offset, int length);

    /**
     * {@return whether the frames sent now must carry their ICRC} True while something on the fabric
     * reads frames on their way — a pcap tap, a frame filter (fault injection), a port whose receiver
     * does not take frames without one ({@link FrameReceiver#takesFramesWithoutIcrc()}). False when
     * every frame reaches an RNIC unread and unchanged: a sender may then leave the ICRC out, as a
     * real RNIC leaves it to its hardware ({@link org.roce4j.wire.PacketWriter#offloadIcrc}), and send
     * with {@link #transmitUnchanged}. Read under the fabric lock, which installing a tap or a filter takes.
     */
    default boolean needsIcrc() {
        return true;
    }

    /**
     * Sends a frame as {@link #transmit} does, from an RNIC that vouches the bytes are exactly as it
     * built them, its ICRC computed when {@link #needsIcrc()} said so and zero otherwise. If the fabric
     * changes nothing on the way (no frame filter), the receiver gets it through
     * {@link FrameReceiver#onUnchangedFrame} and need not check the ICRC.
     */
    default void transmitUnchanged(byte[] frame, int offset, int length) {
        transmit(frame, offset, length);
    }

    /**
     * Sends {@code frame[0 .. length)} as {@link #transmitUnchanged} does, letting the fabric keep the
     * array instead of copying it — as a DMA engine reads a frame where it was built. The caller must
     * not touch the array it gave again.
     *
     * @param frame an array of {@link Fabric#MAX_FRAME_LENGTH} bytes or more
     * @return the array to build the next frame in: {@code frame} when the fabric copied it, else
     *         another of {@link Fabric#MAX_FRAME_LENGTH} bytes or more
     */
    default byte[] transmitHandingOver(byte[] frame, int length) {
        transmitUnchanged(frame, 0, length);
        return frame;
    }

    /**
     * Sends {@code frame[0 .. length)} as {@link #transmitHandingOver(byte[], int)} does, its payload still
     * in the sender's memory ({@link PayloadReference}): only when {@link #needsIcrc()} said false under the
     * same hold of the fabric lock. A port that cannot carry the reference copies the payload in first.
     */
    default byte[] transmitHandingOver(byte[] frame, int length, PayloadReference payload) {
        payload.copyInto(frame, 0);
        return transmitHandingOver(frame, length);
    }

    /** {@return the fabric's clock} */
    Clock clock();
}
