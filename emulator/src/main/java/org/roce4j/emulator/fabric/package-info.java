/**
 * The in-process Ethernet that deterministic tests run on: a switch that forwards real encoded
 * frames between emulated RNICs, a virtual clock that moves only when the fabric is idle (or the
 * system clock on the threaded fabric), seeded fault plans, the frame pool and the pcap tap.
 */
package org.roce4j.emulator.fabric;
