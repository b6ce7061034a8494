package org.roce4j.testkit;

/** How frames travel between the nodes of an {@link EmulatedFabric}. */
public enum Link {
    /**
     * In process, on virtual time, with no threads: the test's own calls (a CQ poll) drive the
     * fabric, so a run is the same on every machine and timeouts cost no wall time.
     */
    DETERMINISTIC,
    /** In process, on the system clock, driven by an event-loop thread: the timing of a real NIC. */
    THREADED,
    /**
     * Real RoCEv2 over UDP port 4791 on loopback addresses 127.0.0.2, 127.0.0.3, …, one socket
     * per node (Linux answers on all of 127.0.0.0/8), each node's RNIC on its own event-loop thread.
     * Faults are injected before each node's socket by one injector the nodes share, as the nodes of
     * an in-process fabric do; delays are in real time.
     */
    UDP_LOOPBACK
}
