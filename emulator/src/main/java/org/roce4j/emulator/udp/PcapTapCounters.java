package org.roce4j.emulator.udp;

/**
 * What a UDP link's capture ({@link UdpRnic#tap}) did, bounded as {@link UdpLinkConfig} says.
 *
 * @param framesWritten records in the file
 * @param bytesWritten the file's size once flushed: the global header and every record
 * @param invalidSkipped received datagrams not recorded because their ICRC did not verify
 *     ({@link UdpLinkConfig#tapValidFramesOnly()})
 * @param overLimit frames not recorded because the file had reached {@link UdpLinkConfig#tapMaxBytes()}
 */
public record PcapTapCounters(long framesWritten, long bytesWritten, long invalidSkipped, long overLimit) {
}
