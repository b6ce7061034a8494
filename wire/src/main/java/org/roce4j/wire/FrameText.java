package org.roce4j.wire;

import static java.lang.String.format;
import static java.util.Locale.ROOT;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Optional;
import org.roce4j.wire.mad.CmMad;
import org.roce4j.wire.mad.CmMessage;
import org.roce4j.wire.mad.CmaHeader;
import org.roce4j.wire.mad.ConnectReject;
import org.roce4j.wire.mad.ConnectReply;
import org.roce4j.wire.mad.ConnectRequest;
import org.roce4j.wire.mad.DecodedCmMad;
import org.roce4j.wire.mad.DisconnectReply;
import org.roce4j.wire.mad.DisconnectRequest;
import org.roce4j.wire.mad.MadHeader;
import org.roce4j.wire.mad.MessageReceiptAck;
import org.roce4j.wire.mad.ReadyToUse;
import org.roce4j.wire.mad.ServiceId;
import org.roce4j.wire.mad.SidrReply;
import org.roce4j.wire.mad.SidrRequest;
import org.roce4j.wire.mad.SidrStatus;

/**
 * RoCE frames as text, the one way roce4j writes them: {@code roce4j decode}'s lines and the
 * testkit's failure reports. QPNs, PSNs, keys and addresses are hex (QPNs and PSNs six digits, as
 * 24-bit values, the way rdma-core's tools and the verbs-api's {@code NumberText} print them, which
 * wire cannot see: one face for every roce4j line, issue 21; tshark shows a BTH PSN in decimal); MSNs
 * and lengths decimal.
 */
public final class FrameText {
    private static final int GROUPS = 8;

    private FrameText() {
    }

    /**
     * {@return the one-line summary of a RoCE frame: addresses, opcode, QP, PSN, the key fields of
     * each header, FECN/BECN, VLAN, payload length} What {@code roce4j decode} prints between the
     * frame's number and time and its ICRC verdict, and the testkit's failure reports too.
     *
     * @param frame the decoded frame
     */
    public static String summary(RoceFrame frame) {
        String addresses = address(frame.ip().source()) + " → " + address(frame.ip().destination());
        return transportSummary(addresses, frame.packet(), frame.ethernet().vlan());
    }

    /**
     * {@return the one-line summary of a RoCEv1 frame or an InfiniBand packet, as {@link
     * #summary(RoceFrame)} writes a RoCEv2 frame's, led by its encapsulation} Addresses are the GIDs
     * when there is a GRH, and on InfiniBand the LIDs too, e.g. {@code RoCEv1 2001:db8::1 → 2001:db8::2
     * RC Send Only QP=0x000012 PSN=0x000003 payload=42} or {@code IB LID 0x0001 → LID 0x0002 RC ...}.
     *
     * @param frame the decoded frame
     */
    public static String summary(IbFrame frame) {
        StringBuilder addresses = new StringBuilder(frame.encapsulation().displayName()).append(' ');
        frame.lrh().ifPresent(lrh -> addresses.append(format(ROOT, "LID 0x%04x → LID 0x%04x",
                lrh.sourceLid(), lrh.destinationLid())).append(frame.grh().isPresent() ? " " : ""));
        frame.grh().ifPresent(grh -> addresses.append(address(grh.sourceGid())).append(" → ")
                .append(address(grh.destinationGid())));
        return transportSummary(addresses.toString(), frame.packet(),
                frame.ethernet().flatMap(EthernetHeader::vlan));
    }

    private static String transportSummary(String addresses, RocePacket packet, Optional<VlanTag> vlan) {
        Bth bth = packet.bth();
        Opcode opcode = bth.opcode();
        StringBuilder line = new StringBuilder(addresses)
                .append(' ').append(opcode.displayName())
                .append(format(ROOT, " QP=0x%06x PSN=0x%06x", bth.destQp(), bth.psn()));
        for (ExtensionHeader header : packet.headers()) {
            String fields = summaryFields(header, opcode);
            if (fields != null) {
                line.append(' ').append(headerName(header.type())).append('(').append(fields).append(')');
            }
        }
        if (bth.fecn()) {
            line.append(" FECN");
        }
        if (bth.becn()) {
            line.append(" BECN");
        }
        vlan.ifPresent(tag -> line.append(" VLAN=").append(tag.vlanId()));
        if (opcode.carriesPayload()) {
            line.append(" payload=").append(packet.payloadLength());
        }
        return line.toString();
    }

    /**
     * {@return the line that names the CM message a frame carries, or empty if it carries none}
     * A CM MAD is the payload of a UD SEND Only to QP 1 (IBTA §13.5.1); decode prints this line
     * under the frame's summary, e.g. {@code CM REQ comm 0x1234abcd sid 0x0000000106004e20 qpn
     * 0x000011 psn 0x1a2b3c mtu 1024 pdata 56 B (rdma_cm 10.0.0.1:40001 → 10.0.0.2:20000)}. The
     * private-data length is the message's field less rdma_cm's header where there is one (the wire
     * carries no length).
     *
     * @param frame the decoded frame
     */
    public static Optional<String> cmLine(RoceFrame frame) {
        RocePacket packet = frame.packet();
        if (packet.opcode() != Opcode.UD_SEND_ONLY || packet.bth().destQp() != MadHeader.GSI_QPN) {
            return Optional.empty();
        }
        byte[] payload = packet.payload();
        if (CmMad.decode(payload, 0, payload.length) instanceof DecodedCmMad.Decoded decoded) {
            return Optional.of("CM " + decoded.message().attribute() + " " + cmFields(decoded.message()));
        }
        return Optional.empty();
    }

    private static String cmFields(CmMessage message) {
        return switch (message) {
            case ConnectRequest m -> format(ROOT, "comm 0x%08x sid 0x%016x qpn 0x%06x psn 0x%06x mtu %d", m.localCommId(),
                    m.serviceId(), m.localQpn(), m.startingPsn(), 128 << m.pathMtu())
                    + privateData(m.privateData(), m.serviceId());
            case ConnectReply m -> format(ROOT, "comm 0x%08x remote 0x%08x qpn 0x%06x psn 0x%06x", m.localCommId(),
                    m.remoteCommId(), m.localQpn(), m.startingPsn());
            case ConnectReject m -> "reason " + m.reason() + m.knownReason().map(r -> " (" + r.description() + ")").orElse("")
                    + format(ROOT, " comm 0x%08x remote 0x%08x", m.localCommId(), m.remoteCommId());
            case MessageReceiptAck m -> format(ROOT, "comm 0x%08x remote 0x%08x mraed %d timeout %d", m.localCommId(),
                    m.remoteCommId(), m.messageMraed(), m.serviceTimeout());
            case ReadyToUse m -> format(ROOT, "comm 0x%08x remote 0x%08x", m.localCommId(), m.remoteCommId());
            case DisconnectRequest m -> format(ROOT, "comm 0x%08x remote 0x%08x qpn 0x%06x", m.localCommId(),
                    m.remoteCommId(), m.remoteQpnEecn());
            case DisconnectReply m -> format(ROOT, "comm 0x%08x remote 0x%08x", m.localCommId(), m.remoteCommId());
            case SidrRequest m -> format(ROOT, "req 0x%08x sid 0x%016x", m.requestId(), m.serviceId())
                    + privateData(m.privateData(), m.serviceId());
            case SidrReply m -> "status " + m.status() + m.knownStatus().filter(st -> st != SidrStatus.SUCCESS)
                    .map(st -> " (" + st.description() + ")").orElse("")
                    + format(ROOT, " qpn 0x%06x qkey 0x%08x req 0x%08x", m.qpn(), m.qkey(), m.requestId());
        };
    }

    /** The private data's length, and rdma_cm's addresses where its header leads the data (cma.c cma_format_hdr). */
    private static String privateData(byte[] privateData, long serviceId) {
        Optional<CmaHeader> header = ServiceId.isRdmaCm(serviceId) && ServiceId.portSpace(serviceId) != ServiceId.PS_IB
                ? CmaHeader.decode(privateData, 0, privateData.length) : Optional.empty();
        return header.map(h -> format(ROOT, " pdata %d B (rdma_cm %s → %s)", privateData.length - CmaHeader.LENGTH,
                        endpoint(h.source(), h.sourcePort()), endpoint(h.destination(), ServiceId.port(serviceId))))
                .orElse(format(ROOT, " pdata %d B", privateData.length));
    }

    private static String endpoint(InetAddress address, int port) {
        return address instanceof Inet6Address ? "[" + address(address) + "]:" + port : address(address) + ":" + port;
    }

    /**
     * {@return seconds with nine decimals, like tshark's relative time column}
     *
     * @param nanos nanoseconds since the first frame (may be negative)
     */
    public static String seconds(long nanos) {
        long magnitude = Math.abs(nanos);
        return format(ROOT, "%s%d.%09d", nanos < 0 ? "-" : "", magnitude / 1_000_000_000L, magnitude % 1_000_000_000L);
    }

    /**
     * {@return the header's name as Wireshark and IBTA write it}
     *
     * @param type the header
     */
    public static String headerName(HeaderType type) {
        return switch (type) {
            case BTH -> "BTH";
            case RDETH -> "RDETH";
            case DETH -> "DETH";
            case XRCETH -> "XRCETH";
            case FETH -> "FETH";
            case RETH -> "RETH";
            case ATOMIC_ETH -> "AtomicETH";
            case AETH -> "AETH";
            case ATOMIC_ACK_ETH -> "AtomicAckETH";
            case IMM_DT -> "ImmDt";
            case IETH -> "IETH";
            case CNP_RESERVED -> "CNP"; // its 16 reserved bytes (A17.9.3)
        };
    }

    /**
     * {@return every BTH field (IBTA §9.2), for {@code decode --verbose}}
     *
     * @param bth the header
     */
    public static String bth(Bth bth) {
        return format(ROOT, "opcode=0x%02x SE=%d M=%d pad=%d TVer=%d P_Key=0x%04x FECN=%d BECN=%d QP=0x%06x A=%d PSN=0x%06x",
                bth.opcode().code(), bit(bth.solicitedEvent()), bit(bth.migReq()), bth.padCount(),
                bth.transportVersion(), bth.pkey(), bit(bth.fecn()), bit(bth.becn()), bth.destQp(),
                bit(bth.ackReq()), bth.psn());
    }

    /**
     * {@return the fields the one-line summary shows, or null for a header it leaves out (the CNP's
     * reserved bytes)} A Fetch Add shows no compare value: IBTA §9.3.5 says it is ignored.
     *
     * @param header the header
     * @param opcode the packet's opcode (an AtomicETH reads as add or swap by it)
     */
    public static String summaryFields(ExtensionHeader header, Opcode opcode) {
        return switch (header) {
            case AtomicEth a when opcode.operation() == Operation.FETCH_ADD ->
                    format(ROOT, "va=0x%016x rkey=0x%08x add=0x%016x", a.virtualAddress(), a.rkey(), a.swapOrAddData());
            case CnpReserved c -> null;
            default -> fields(header, opcode);
        };
    }

    /**
     * {@return every field, for {@code decode --verbose}}
     *
     * @param header the header
     * @param opcode the packet's opcode
     */
    public static String verboseFields(ExtensionHeader header, Opcode opcode) {
        return switch (header) {
            case Aeth a -> format(ROOT, "syndrome=0x%02x ", a.syndromeByte()) + fields(a, opcode);
            case CnpReserved c -> format(ROOT, "reserved=0x%016x%016x", c.high(), c.low());
            default -> fields(header, opcode);
        };
    }

    private static String fields(ExtensionHeader header, Opcode opcode) {
        return switch (header) {
            case Rdeth r -> format(ROOT, "EEC=0x%06x", r.eeContext());
            case Deth d -> format(ROOT, "qkey=0x%08x srcQP=0x%06x", d.qkey(), d.sourceQp());
            case Xrceth x -> format(ROOT, "SRQ=0x%06x", x.xrcSrq());
            case Feth f -> format(ROOT, "sel=%d placement=%d", f.selectivityLevel(), f.placementType());
            case Reth r -> format(ROOT, "va=0x%016x rkey=0x%08x len=%d", r.virtualAddress(), r.rkey(), r.dmaLengthUnsigned());
            case AtomicEth a -> format(ROOT, "va=0x%016x rkey=0x%08x %s=0x%016x compare=0x%016x",
                    a.virtualAddress(), a.rkey(), opcode.operation() == Operation.FETCH_ADD ? "add" : "swap",
                    a.swapOrAddData(), a.compareData());
            case Aeth a -> syndrome(a.syndrome()) + format(ROOT, " MSN=%d", a.msn());
            case AtomicAckEth a -> format(ROOT, "orig=0x%016x", a.originalData());
            case ImmDt i -> format(ROOT, "imm=0x%08x", i.immediateData());
            case Ieth i -> format(ROOT, "rkey=0x%08x", i.rkey());
            case CnpReserved c -> "";
        };
    }

    /**
     * {@return the AETH syndrome as IBTA §9.3.6 reads it: ACK credits, RNR NAK timer, or NAK code}
     *
     * @param syndrome the decoded syndrome
     */
    public static String syndrome(AethSyndrome syndrome) {
        return switch (syndrome) {
            case AethSyndrome.Ack ack -> "ACK credits=" + ack.creditCount();
            case AethSyndrome.RnrNak rnr -> "RNR NAK timer=" + rnr.timerCode() + " (" + milliseconds(rnr.delayNanos()) + ")";
            case AethSyndrome.Nak nak -> nak.code() == null
                    ? "NAK reserved code=" + nak.value()
                    : "NAK " + nak.code().description();
            case AethSyndrome.Reserved reserved -> format(ROOT, "reserved syndrome=0x%02x", reserved.syndrome());
        };
    }

    /** The RNR delays of IBTA table 45 are whole multiples of 10 µs: two decimals are exact. */
    private static String milliseconds(long nanos) {
        long hundredths = nanos / 10_000;
        return format(ROOT, "%d.%02d ms", hundredths / 100, hundredths % 100);
    }

    private static int bit(boolean value) {
        return value ? 1 : 0;
    }

    /**
     * {@return an IP address as people and tshark write it: IPv4 dotted quads, IPv6 in the canonical
     * form of RFC 5952 (lower case, no leading zeros, the longest run of two or more zero groups as
     * "::", IPv4-mapped addresses as {@code ::ffff:192.0.2.1})} {@link InetAddress#getHostAddress()}
     * does none of the IPv6 part.
     *
     * @param address the address
     */
    public static String address(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address.getHostAddress();
        }
        byte[] bytes = address.getAddress();
        if (isIpv4Mapped(bytes)) { // RFC 5952 §5
            return "::ffff:" + (bytes[12] & 0xFF) + "." + (bytes[13] & 0xFF) + "." + (bytes[14] & 0xFF) + "." + (bytes[15] & 0xFF);
        }
        int[] groups = new int[GROUPS];
        for (int i = 0; i < GROUPS; i++) {
            groups[i] = (bytes[2 * i] & 0xFF) << 8 | bytes[2 * i + 1] & 0xFF;
        }
        // RFC 5952 §4.2: shorten the longest run of zero groups (the first if tied), never just one.
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < GROUPS; ) {
            int j = i;
            while (j < GROUPS && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = Math.max(j, i + 1);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < GROUPS; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }

    private static boolean isIpv4Mapped(byte[] bytes) {
        for (int i = 0; i < 10; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return bytes[10] == (byte) 0xFF && bytes[11] == (byte) 0xFF;
    }
}
