package org.roce4j.tools;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AtomicAckEth;
import org.roce4j.wire.AtomicEth;
import org.roce4j.wire.Bth;
import org.roce4j.wire.CnpReserved;
import org.roce4j.wire.Deth;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.ExtensionHeader;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.Grh;
import org.roce4j.wire.IbFrame;
import org.roce4j.wire.Lrh;
import org.roce4j.wire.Feth;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.Ieth;
import org.roce4j.wire.ImmDt;
import org.roce4j.wire.IpHeader;
import org.roce4j.wire.Ipv4Header;
import org.roce4j.wire.Ipv6Header;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Operation;
import org.roce4j.wire.Rdeth;
import org.roce4j.wire.Reth;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.Transport;
import org.roce4j.wire.UdpHeader;
import org.roce4j.wire.VlanTag;
import org.roce4j.wire.Xrceth;
import org.roce4j.wire.pcap.ErfInfiniband;
import org.roce4j.wire.pcap.LinkType;
import org.roce4j.wire.pcap.PcapWriter;

/**
 * One RoCEv2 frame for every {@link Opcode}, in code order, with realistic and distinctive field
 * values: the catalogue behind {@code pcaps/all-opcodes.pcap} (IPv4) and
 * {@code pcaps/all-opcodes-ipv6.pcap} (the same frames over IPv6), and the same transport packets
 * as RoCEv1 ({@code all-opcodes-rocev1.pcap}) and native InfiniBand, without and with a GRH
 * ({@code all-opcodes-ib.pcap}, {@code all-opcodes-ib-grh.pcap}, ERF records as ibdump writes them).
 *
 * <p>Node A (02:00:00:00:00:01, 192.0.2.1 / 2001:db8::1) is the requester of every message and
 * node B (…:02, 192.0.2.2 / 2001:db8::2) its responder: requests flow A → B, responses and the
 * CNP B → A. Each transport has its own pair of QPs and its own PSN sequence; RC's starts at
 * 0xfffff8 so that it wraps to 0 (IBTA §9.7.1: PSNs are 24-bit modular). First and Middle packets
 * carry a full 256-byte PMTU (IBTA §9.4: only Last and Only packets may be shorter); Last and Only packets carry odd sizes so that every
 * pad count 0-3 occurs. The IPv4 header is what Linux sends for a UDP socket with
 * IP_DONTFRAGMENT: DF set, Identification 0. Timestamps start at {@link #FIRST_TIMESTAMP_NANOS}
 * and advance 1 µs per frame, so the files are byte for byte reproducible.
 */
final class AllOpcodesCapture {
    static final String IPV4_FILE = "all-opcodes.pcap";
    static final String IPV6_FILE = "all-opcodes-ipv6.pcap";
    static final String ROCE_V1_FILE = "all-opcodes-rocev1.pcap";
    static final String INFINIBAND_FILE = "all-opcodes-ib.pcap";
    static final String INFINIBAND_GRH_FILE = "all-opcodes-ib-grh.pcap";

    /** 2026-01-01T00:00:00Z, the timestamp of the first frame. */
    static final long FIRST_TIMESTAMP_NANOS = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond() * 1_000_000_000L;
    static final long SPACING_NANOS = 1_000;

    /** The one frame with an 802.1Q tag: VLAN 100, priority 3 (the class RoCE commonly runs in). */
    static final Opcode VLAN_TAGGED = Opcode.UD_SEND_ONLY;
    static final VlanTag VLAN = new VlanTag(3, false, 100);

    /** Path MTU: what First and Middle packets carry (IBTA §9.4). */
    static final int PMTU = 256;

    private static final Node A = new Node(MacAddress.parse("02:00:00:00:00:01"), "192.0.2.1", "2001:db8::1");
    private static final Node B = new Node(MacAddress.parse("02:00:00:00:00:02"), "192.0.2.2", "2001:db8::2");
    /** The nodes' LIDs on InfiniBand, as a subnet manager hands them out from 1. */
    private static final int LID_A = 0x0001;
    private static final int LID_B = 0x0002;

    /** Per transport: A's QP (requester), B's QP (responder), the first PSN. */
    private static final Map<Transport, Flow> FLOWS = new EnumMap<>(Map.of(
            Transport.RC, new Flow(0x000011, 0x000012, 0xFFFFF8),
            Transport.UC, new Flow(0x000021, 0x000022, 1000),
            Transport.RD, new Flow(0x000031, 0x000032, 2000),
            Transport.UD, new Flow(0x000041, 0x000042, 3000),
            // A17.9.3: a CNP names the QP whose traffic met congestion (A's RC QP); PSN is 0.
            Transport.CNP, new Flow(0x000011, 0x000012, 0),
            Transport.XRC, new Flow(0x000051, 0x000052, 5000)));
    private static final int RD_EEC_A = 0x000033;
    private static final int RD_EEC_B = 0x000034;
    private static final int XRC_SRQ = 0x000053;
    /** ibv_ud_pingpong's and perftest's Q_Key. */
    private static final int UD_QKEY = 0x11111111;
    private static final int RD_QKEY = 0x22222222;
    private static final long COMPARE = 0xCAFEF00DL;
    private static final long SWAP = 0xDEADBEEFL;
    private static final long ADD = 16;

    private AllOpcodesCapture() {}

    /** The frames of {@link #IPV4_FILE} ({@code ipVersion} 4) or {@link #IPV6_FILE} (6), in Opcode order. */
    static List<RoceFrame> frames(int ipVersion) {
        if (ipVersion != 4 && ipVersion != 6) {
            throw new IllegalArgumentException("IP version must be 4 or 6, not " + ipVersion);
        }
        Map<Transport, Integer> seen = new EnumMap<>(Transport.class);
        List<RoceFrame> frames = new ArrayList<>();
        for (Opcode opcode : Opcode.values()) {
            int index = seen.merge(opcode.transport(), 1, Integer::sum) - 1;
            frames.add(frame(opcode, index, ipVersion));
        }
        return frames;
    }

    /**
     * The same transport packets as RoCEv1 frames (IBTA Annex A16): the IPv6 frames' Ethernet
     * header with EtherType 0x8915 and a GRH in place of IPv6 and UDP, the IPv6 addresses as GIDs.
     */
    static List<IbFrame> roceV1Frames() {
        return frames(6).stream().map(frame -> IbFrame.roceV1(
                new EthernetHeader(frame.ethernet().destination(), frame.ethernet().source(), frame.ethernet().vlan(),
                        EthernetHeader.ETHERTYPE_ROCE_V1), grh(frame), frame.packet())).toList();
    }

    /**
     * The same transport packets as native InfiniBand packets, as ibdump captures them: LRH from
     * node A's LID 1 to node B's LID 2 (or back), VL 0, SL 0, then — when {@code global} — the GRH
     * of {@link #roceV1Frames()}.
     */
    static List<IbFrame> infinibandFrames(boolean global) {
        return frames(6).stream().map(frame -> {
            boolean fromA = frame.ethernet().source().equals(A.mac);
            Lrh lrh = new Lrh(0, 0, fromA ? LID_B : LID_A, fromA ? LID_A : LID_B);
            return IbFrame.infiniband(lrh, global ? Optional.of(grh(frame)) : Optional.empty(), frame.packet());
        }).toList();
    }

    private static Grh grh(RoceFrame ipv6Frame) {
        Ipv6Header ip = (Ipv6Header) ipv6Frame.ip();
        return new Grh(ip.trafficClass(), ip.flowLabel(), ip.hopLimit(), ip.source(), ip.destination());
    }

    /** Writes every file into {@code dir} (which must exist); returns their paths. */
    static List<Path> writeAll(Path dir) throws IOException {
        FrameEncoder encoder = new FrameEncoder();
        Path ipv4 = dir.resolve(IPV4_FILE);
        Path ipv6 = dir.resolve(IPV6_FILE);
        write(ipv4, LinkType.ETHERNET, frames(4).stream().map(encoder::encode).toList());
        write(ipv6, LinkType.ETHERNET, frames(6).stream().map(encoder::encode).toList());
        Path roceV1 = dir.resolve(ROCE_V1_FILE);
        Path infiniband = dir.resolve(INFINIBAND_FILE);
        Path infinibandGrh = dir.resolve(INFINIBAND_GRH_FILE);
        write(roceV1, LinkType.ETHERNET, roceV1Frames().stream().map(IbFrame::encode).toList());
        // As ibdump writes InfiniBand: ERF records (Wireshark 4.0 does not read LINKTYPE_INFINIBAND, 247).
        write(infiniband, LinkType.ERF, erfRecords(infinibandFrames(false)));
        write(infinibandGrh, LinkType.ERF, erfRecords(infinibandFrames(true)));
        return List.of(ipv4, ipv6, roceV1, infiniband, infinibandGrh);
    }

    static long timestampNanos(int frameIndex) {
        return FIRST_TIMESTAMP_NANOS + frameIndex * SPACING_NANOS;
    }

    private static List<byte[]> erfRecords(List<IbFrame> packets) {
        List<byte[]> records = new ArrayList<>();
        for (int i = 0; i < packets.size(); i++) {
            records.add(ErfInfiniband.wrap(timestampNanos(i), packets.get(i).encode()));
        }
        return records;
    }

    private static void write(Path file, LinkType linkType, List<byte[]> frames) throws IOException {
        try (PcapWriter writer = PcapWriter.create(file, linkType)) {
            for (int i = 0; i < frames.size(); i++) {
                writer.write(timestampNanos(i), frames.get(i));
            }
        }
    }

    /** The frame for {@code opcode}, the {@code index}-th of its transport. */
    private static RoceFrame frame(Opcode opcode, int index, int ipVersion) {
        Flow flow = FLOWS.get(opcode.transport());
        boolean fromA = opcode.isRequest();
        Node source = fromA ? A : B;
        Node destination = fromA ? B : A;
        int sourceQp = fromA ? flow.requesterQp : flow.responderQp;
        int destQp = fromA ? flow.responderQp : flow.requesterQp;

        Bth bth = Bth.of(opcode, destQp, (flow.firstPsn + index) & 0xFFFFFF)
                // Solicit an event for the messages that bring immediate data (BTH SE, IBTA §9.2).
                .withSolicitedEvent(opcode.hasImmediate())
                // Ask for an ACK at the end of each reliable request (BTH AckReq, IBTA §9.2), as rxe does.
                .withAckReq(opcode.isRequest() && reliable(opcode.transport()) && opcode.position().endsMessage());
        if (opcode == Opcode.CNP) {
            // A17.9.3: a CNP has MigReq 0 and BECN 1.
            bth = bth.withMigReq(false).withCongestion(false, true);
        }
        List<ExtensionHeader> headers = new ArrayList<>();
        for (HeaderType type : opcode.headers()) {
            if (type != HeaderType.BTH) {
                headers.add(header(type, opcode, index));
            }
        }
        RocePacket packet = RocePacket.of(bth, headers, payload(opcode));

        IpHeader ip = ipVersion == 4
                ? new Ipv4Header(0, 0, true, 64, source.ipv4, destination.ipv4)
                : new Ipv6Header(0, 0, 64, Ipv6Header.parseAddress(source.ipv6), Ipv6Header.parseAddress(destination.ipv6));
        int etherType = ipVersion == 4 ? EthernetHeader.ETHERTYPE_IPV4 : EthernetHeader.ETHERTYPE_IPV6;
        Optional<VlanTag> vlan = opcode == VLAN_TAGGED ? Optional.of(VLAN) : Optional.empty();
        EthernetHeader ethernet = new EthernetHeader(destination.mac, source.mac, vlan, etherType);
        // Like rxe, a per-QP UDP source port in the dynamic range spreads flows over ECMP paths.
        UdpHeader udp = UdpHeader.toRocePort(0xC000 | sourceQp);
        return new RoceFrame(ethernet, ip, udp, packet);
    }

    private static boolean reliable(Transport transport) {
        return transport == Transport.RC || transport == Transport.RD || transport == Transport.XRC;
    }

    private static ExtensionHeader header(HeaderType type, Opcode opcode, int index) {
        Flow flow = FLOWS.get(opcode.transport());
        return switch (type) {
            // IBTA §9.3.2: RDETH names the destination's EE context.
            case RDETH -> new Rdeth(opcode.isRequest() ? RD_EEC_B : RD_EEC_A);
            case DETH -> new Deth(opcode.transport() == Transport.UD ? UD_QKEY : RD_QKEY, flow.requesterQp);
            case XRCETH -> new Xrceth(XRC_SRQ);
            // Flush a range (selectivity 0) to persistence (placement type 2), as rxe names them.
            case FETH -> new Feth(0, 2);
            case RETH -> new Reth(virtualAddress(opcode), rkey(opcode), dmaLength(opcode.operation()));
            case ATOMIC_ETH -> opcode.operation() == Operation.COMPARE_SWAP
                    ? new AtomicEth(virtualAddress(opcode), rkey(opcode), SWAP, COMPARE)
                    : new AtomicEth(virtualAddress(opcode), rkey(opcode), ADD, 0);
            case AETH -> aeth(opcode, 1000 * (opcode.transport().ordinal() + 1) + index);
            // The compare matched: the original value is the compare value.
            case ATOMIC_ACK_ETH -> new AtomicAckEth(COMPARE);
            case IMM_DT -> new ImmDt(0xC0DE0000 | opcode.code());
            case IETH -> new Ieth(rkey(opcode));
            case CNP_RESERVED -> CnpReserved.ZERO;
            case BTH -> throw new IllegalArgumentException("BTH is not an extension header");
        };
    }

    /**
     * Every AETH syndrome type occurs: the three Acknowledge packets carry a NAK (PSN sequence
     * error on RC, invalid RD request on RD) and an RNR NAK (on XRC, whose SRQ ran dry); read
     * responses and atomic acknowledgements carry ACKs (IBTA §9.3.6, table 44 for the NAK codes).
     */
    private static Aeth aeth(Opcode opcode, int msn) {
        return switch (opcode.operation()) {
            case ACKNOWLEDGE -> switch (opcode.transport()) {
                case RC -> Aeth.nak(NakCode.PSN_SEQUENCE_ERROR, msn);
                case RD -> Aeth.nak(NakCode.INVALID_RD_REQUEST, msn);
                default -> Aeth.rnrNak(14, msn);
            };
            case RDMA_READ_RESPONSE_ONLY -> Aeth.ack(5, msn);
            case ATOMIC_ACKNOWLEDGE -> Aeth.ack(12, msn);
            default -> Aeth.ack(31, msn); // 31: no end-to-end credit information (IBTA table 43)
        };
    }

    /** Payload bytes: PMTU for First/Middle, odd sizes elsewhere so that pad counts 1-3 occur. */
    static int payloadLength(Operation operation) {
        return switch (operation) {
            case SEND_FIRST, SEND_MIDDLE, RDMA_WRITE_FIRST, RDMA_WRITE_MIDDLE,
                 RDMA_READ_RESPONSE_FIRST, RDMA_READ_RESPONSE_MIDDLE -> PMTU;
            case SEND_LAST -> 100;
            case SEND_LAST_WITH_IMMEDIATE -> 61;
            case SEND_ONLY -> 42;
            case SEND_ONLY_WITH_IMMEDIATE -> 16;
            case RDMA_WRITE_LAST -> 77;
            case RDMA_WRITE_LAST_WITH_IMMEDIATE -> 64;
            case RDMA_WRITE_ONLY -> 5;
            case RDMA_WRITE_ONLY_WITH_IMMEDIATE -> 32;
            case RDMA_READ_RESPONSE_LAST -> 150;
            case RDMA_READ_RESPONSE_ONLY -> 9;
            case SEND_LAST_WITH_INVALIDATE -> 31;
            case SEND_ONLY_WITH_INVALIDATE -> 48;
            case ATOMIC_WRITE -> 8; // IBTA 1.5: exactly the 8 bytes written
            default -> 0;
        };
    }

    /** RETH DMA length: the whole message (IBTA §9.3.4), a three-packet one for First and READ. */
    private static int dmaLength(Operation operation) {
        return switch (operation) {
            case RDMA_WRITE_FIRST -> 2 * PMTU + payloadLength(Operation.RDMA_WRITE_LAST);
            case RDMA_READ_REQUEST -> 2 * PMTU + payloadLength(Operation.RDMA_READ_RESPONSE_LAST);
            case FLUSH -> 4096;
            default -> payloadLength(operation);
        };
    }

    /** A page-aligned (so also 8-byte aligned, as atomics need) address distinct per opcode. */
    private static long virtualAddress(Opcode opcode) {
        return 0x0000_7F52_0000_0000L + ((long) opcode.code() << 16);
    }

    /** An rxe-style key (MR index in the upper 24 bits, an 8-bit key below) distinct per opcode. */
    private static int rkey(Opcode opcode) {
        return (0x100 | opcode.code()) << 8 | 0x2C;
    }

    /** The payload: the opcode's name repeated, so a hex dump says what it is. */
    private static byte[] payload(Opcode opcode) {
        byte[] text = (opcode.displayName() + ". ").getBytes(StandardCharsets.US_ASCII);
        byte[] payload = new byte[payloadLength(opcode.operation())];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = text[i % text.length];
        }
        return payload;
    }

    private record Flow(int requesterQp, int responderQp, int firstPsn) {}

    private record Node(MacAddress mac, Inet4Address ipv4, String ipv6) {
        Node(MacAddress mac, String ipv4, String ipv6) {
            this(mac, parseIpv4(ipv4), ipv6);
        }

        private static Inet4Address parseIpv4(String text) {
            try {
                return (Inet4Address) InetAddress.getByName(text); // a literal: no name lookup
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(text, e);
            }
        }
    }
}
