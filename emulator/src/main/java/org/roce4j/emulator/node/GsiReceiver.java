package org.roce4j.emulator.node;

import org.roce4j.wire.PacketInfo;

/**
 * Where a node's QP 1 traffic goes: the General Services Interface is not an {@code EmulatedQp}
 * but the node's management agent (the connection manager), as in Linux, where {@code ib_mad}
 * owns QP 1 and hands CM MADs to {@code ib_cm}. Called under the fabric lock with the parsed
 * packet, which is only valid during the call.
 */
public interface GsiReceiver {
    /**
     * A packet whose BTH destination QP is 1.
     *
     * @param packet    the parsed packet (valid during the call only)
     * @param nowNanos  the fabric's time
     */
    void receive(PacketInfo packet, long nowNanos);
}
