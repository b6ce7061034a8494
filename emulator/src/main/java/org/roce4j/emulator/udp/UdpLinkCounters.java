package org.roce4j.emulator.udp;

/**
 * What a UDP link counted (the RNIC's own counters are {@link org.roce4j.emulator.SoftRnic#counters()}).
 *
 * @param framesSent datagrams handed to the socket
 * @param transmitQueueDrops frames dropped because the transmit queue was full (RC retransmits them)
 * @param noSocketDrops frames from a source GID the link has no socket for (e.g. GID 0 fe80::EUI-64 on lo)
 * @param sendFailures datagrams the socket refused (EMSGSIZE, unreachable, ...)
 * @param datagramsReceived datagrams read from the sockets
 * @param icrcValid ICRC verified with every covered field known (IPv6, or IPv4 with Identification 0 and DF)
 * @param icrcIdRecovered IPv4 ICRC verified with the sender's Identification recovered from it (Linux rxe's)
 * @param icrcInvalid ICRC wrong: dropped (also the RNIC's {@code icrc_errors})
 * @param oversizeDrops datagrams longer than the link takes
 * @param icrcIdOutsideWindow IPv4 datagrams whose ICRC matched only for an Identification outside the
 *        window expected from that sender ({@code IdentificationWindow}): dropped (also the RNIC's
 *        {@code icrc_errors}); the sender's next frame in that Identification's window resyncs it
 * @param segmentedSends UDP GSO sends ({@link UdpLinkConfig#segmentationOffload()}), each several of
 *        {@code framesSent}
 * @param datagramsPolled of {@code datagramsReceived}, those read by polling ({@link UdpLinkConfig#receivePolling()}):
 *        by an application thread's CQ poll or the spinning receive thread, not by Netty's loop
 */
public record UdpLinkCounters(long framesSent, long transmitQueueDrops, long noSocketDrops, long sendFailures,
                              long datagramsReceived, long icrcValid, long icrcIdRecovered, long icrcInvalid,
                              long oversizeDrops, long icrcIdOutsideWindow, long segmentedSends,
                              long datagramsPolled) {
}
