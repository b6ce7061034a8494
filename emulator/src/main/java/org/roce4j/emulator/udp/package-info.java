/**
 * RoCEv2 on real UDP port 4791 through Netty: an emulated device bound to a host address that
 * speaks to other JVMs, Linux Soft-RoCE and RNICs: the link (sockets, destinations, capture), its
 * transmit pacer (token bucket, bounded queue) and its receive side (the headers a socket can know,
 * the ICRC check).
 */
package org.roce4j.emulator.udp;
