package org.roce4j.emulator;

import org.roce4j.wire.IcrcStatus;

/**
 * The receive entry of an RNIC attached to an {@link ExternalLink}: a UDP datagram for port 4791,
 * whose ICRC the link has already handled. A UDP socket does not show the IP header, so the link
 * writes in front of the UDP payload the IP and UDP headers as far as it knows them (addresses,
 * ports and lengths from the socket; for IPv4 the Identification it verified or recovered) — the
 * RNIC reads the addresses there (destination GID check, rxe's source address check, the UD GRH).
 * The payload is parsed with {@link org.roce4j.wire.PacketInfo#parseUdpPayload(byte[], int, int, int)},
 * which also takes that IP header's version and addresses in: no ICRC is recomputed here.
 */
public interface DatagramReceiver {

    /**
     * One datagram: IP header at {@code ipOffset}, UDP header after it, the UDP payload (BTH through
     * ICRC) from {@code bthOffset} to {@code end}. {@code icrc} is the link's verdict: VALID, or
     * INVALID (dropped and counted as {@code icrc_errors}), or NOT_CHECKED when the link could not
     * check it. Takes the fabric lock, wakes the event loop; the buffer may be reused on return.
     */
    void onDatagram(byte[] buffer, int ipOffset, int bthOffset, int end, IcrcStatus icrc);
}
