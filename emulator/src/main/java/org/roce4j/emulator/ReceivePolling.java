package org.roce4j.emulator;

/**
 * How a UDP link's unicast sockets are read ({@code UdpLinkConfig.receivePolling}, or {@code rxpoll=}
 * in a device spec). A datagram that Netty's loop reads first wakes that loop from {@code epoll_wait}:
 * 10 to 20 µs on a loaded 2-core machine, twice per round trip. Polling takes the wake-up out, at the price of a thread that runs
 * while it waits (epoll transport only; NIO always reads by events).
 */
public enum ReceivePolling {
    /** Netty's loop reads every datagram, woken by {@code epoll_wait} (the default). */
    OFF,
    /**
     * An application thread that polls one of the device's CQs and finds it empty reads the sockets
     * itself, as a DPDK driver's poll does: the datagram that completes its work needs no other thread.
     * About 1 ms after the last such poll Netty's loop reads again.
     */
    APPLICATION,
    /**
     * As {@link #APPLICATION}, and while no application thread polls, the link's own receive thread
     * spins on the sockets — a core kept busy, as by a DPDK poll-mode driver — until 20 ms pass
     * without a datagram; then it sleeps and Netty's loop reads, until the next datagram.
     */
    SPIN
}
