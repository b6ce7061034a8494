/**
 * RoCEv2 on real UDP port 4791 through Netty: an emulated device bound to a host address that
 * speaks to other JVMs, Linux Soft-RoCE and RNICs, with its pacing, receive-side ICRC check and
 * capture.
 */
package org.roce4j.emulator.udp;
