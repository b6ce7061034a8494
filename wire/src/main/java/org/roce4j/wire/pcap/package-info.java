/**
 * Capture files, classic libpcap and pcapng, read and written in pure Java.
 *
 * <p>The format is the one described by the IETF draft "PCAP Capture File Format"
 * (draft-ietf-opsawg-pcap) and by libpcap's {@code pcap-savefile(5)}: a 24-byte file header
 * followed by records, each a 16-byte record header and the captured bytes. pcapng
 * (draft-ietf-opsawg-pcapng) is a sequence of blocks: {@link org.roce4j.wire.pcap.PcapngReader} and
 * {@link org.roce4j.wire.pcap.PcapngWriter}; {@link org.roce4j.wire.pcap.CaptureReader} reads either
 * format and hands out {@link org.roce4j.wire.pcap.CapturedPacket}s.
 *
 * <ul>
 *   <li>{@link org.roce4j.wire.pcap.PcapWriter} writes nanosecond-resolution Ethernet captures,
 *       byte for byte reproducible (it never reads a clock).
 *   <li>{@link org.roce4j.wire.pcap.PcapReader} reads microsecond or nanosecond files in either
 *       byte order and hands out {@link org.roce4j.wire.pcap.PcapRecord}s with timestamps in
 *       nanoseconds since the epoch.
 *   <li>Bad input fails with {@link org.roce4j.wire.pcap.PcapFormatException}, which names the
 *       byte offset and the {@link org.roce4j.wire.pcap.PcapFormatException.Problem}.
 * </ul>
 */
package org.roce4j.wire.pcap;
