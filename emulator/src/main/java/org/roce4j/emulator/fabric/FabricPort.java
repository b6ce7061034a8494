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

    /** {@return the fabric's clock} */
    Clock clock();
}
