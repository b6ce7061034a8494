package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.AtomicEth;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.EthernetHeader;
import org.roce4j.wire.FrameText;
import org.roce4j.wire.IbCrcCalculator;
import org.roce4j.wire.IbDecodeResult;
import org.roce4j.wire.IbDecoder;
import org.roce4j.wire.IbFrame;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.HeaderType;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.OperationKind;
import org.roce4j.wire.Reth;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RocePacket;
import org.roce4j.wire.Transport;
import org.roce4j.wire.pcap.ErfInfiniband;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * Wireshark, an implementation nobody here wrote, reads the captures roce4j generates across all
 * opcodes — RoCEv2 over IPv4 and IPv6, RoCEv1, and InfiniBand without and with a GRH (ERF records,
 * as ibdump writes them); for the last three also the LRH, GRH and VCRC fields: every frame is dissected as RoCE (RRoCE) with no malformed packet and no expert error,
 * and opcode, QPN, PSN, pad count, RETH, AtomicETH, AETH and ICRC equal what roce4j decoded.
 *
 * <p>What Wireshark itself cannot check, and so is not compared (dissector facts checked in
 * Wireshark 4.0 and 4.4's packet-infiniband.c): it parses no XRCETH (XRC headers land in a
 * "vendor" blob), it does not know FLUSH and ATOMIC WRITE before 4.4, and it dissects every
 * RD opcode (0x40-0x5F) as Mellanox DC transport with a 20-byte BTH, which shifts RD headers by
 * 8 bytes and makes some RD frames look malformed. For those frames only the BTH fields are
 * compared. Without tshark the test is skipped loudly — and fails in CI.
 */
class TsharkCrossCheckTest {
    /** Heuristic payload dissectors that would claim arbitrary test payloads (and call them malformed). */
    private static final List<String> FIELDS = List.of("frame.number", "frame.protocols", "infiniband.bth.opcode",
            "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.padcnt", "infiniband.reth.va",
            "infiniband.reth.r_key", "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
            "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt", "infiniband.invariant.crc",
            "infiniband.variant.crc", "infiniband.lrh.dlid", "infiniband.lrh.slid", "infiniband.lrh.pktlen",
            "infiniband.grh.paylen", "infiniband.grh.dgid",
            "_ws.malformed", "_ws.expert.severity", "_ws.col.Info");
    /** Wireshark's PI_ERROR severity. */
    private static final long EXPERT_ERROR = 0x00800000L;

    private static String tshark;

    @BeforeAll
    static void findTshark() {
        tshark = which("tshark");
    }

    /** Aborts (counted as skipped, and said on stderr) outside CI; fails in CI. */
    private static void requireTshark() {
        if (tshark == null) {
            RequiredInCi.require(false, "tshark: the Wireshark cross-check did NOT run (apt-get install tshark)");
        }
    }

    @ParameterizedTest(name = "tshark reads pcaps/{0} like roce4j does")
    @ValueSource(strings = {"all-opcodes.pcap", "all-opcodes-ipv6.pcap", "all-opcodes-rocev1.pcap", "all-opcodes-ib.pcap",
            "all-opcodes-ib-grh.pcap"})
    void wiresharkAgreesWithOurDecoding(String name) throws Exception {
        requireTshark();
        Path capture = TestCaptures.committed(name);
        List<PcapRecord> records = TestCaptures.read(capture);
        List<RocePacket> ours = decodeAll(records);
        if (!name.equals("all-opcodes.pcap") && !name.equals("all-opcodes-ipv6.pcap")) {
            checkLinkHeaders(name, records, tsharkFields(capture));
        }
        List<String[]> theirs = tsharkFields(capture);
        assertThat(theirs).as("frames tshark read").hasSameSizeAs(ours);
        assertThat(ours.stream().map(RocePacket::opcode).distinct().count())
                .as("the capture covers every opcode").isEqualTo(Opcode.values().length);
        int fieldChecks = 0;
        int rdFrames = 0;
        for (int i = 0; i < ours.size(); i++) {
            RocePacket packet = ours.get(i);
            if (wiresharkMisreadsAsDct(packet.opcode())) {
                rdFrames++;
            }
            if (compareFrame(name + " frame " + (i + 1) + " (" + packet.opcode() + ")", packet,
                    new Row(theirs.get(i)), records.get(i))) {
                fieldChecks++;
            }
        }
        assertThat(fieldChecks).as("frames whose extension headers were compared (all RC, UC and UD opcodes)")
                .isEqualTo(java.util.Arrays.stream(Opcode.values()).filter(TsharkCrossCheckTest::wiresharkParsesHeadersOf).count())
                .isEqualTo(37);
        assertThat(rdFrames).as("RD frames, compared on BTH fields only").isEqualTo(Opcode.of(Transport.RD).size());
    }

    @Test
    @DisplayName("tshark reads pcaps/demo.pcap cleanly: no malformed frame, no expert error, same fields as roce4j")
    void wiresharkReadsTheDemoCapture() throws Exception {
        requireTshark();
        Path capture = TestCaptures.committed(DemoCommand.DEFAULT_FILE);
        List<PcapRecord> records = TestCaptures.read(capture);
        List<RocePacket> ours = decodeAll(records);
        List<String[]> theirs = tsharkFields(capture);
        assertThat(theirs).as("frames tshark read").hasSameSizeAs(ours);
        for (int i = 0; i < ours.size(); i++) {
            RocePacket packet = ours.get(i);
            assertThat(compareFrame("demo.pcap frame " + (i + 1) + " (" + packet.opcode() + ")", packet,
                    new Row(theirs.get(i)), records.get(i))).isTrue();
        }
    }

    /** Compares one frame; true when its extension headers were compared too (Wireshark parses them). */
    private static boolean compareFrame(String what, RocePacket packet, Row row, PcapRecord record) {
        // RoCEv2 is eth:…:udp:infiniband, RoCEv1 eth:ethertype:infiniband, ibdump's ERF erf:infiniband.
        assertThat(row.get("frame.protocols")).as(what).matches(".*(:udp|ethertype|erf):infiniband(:.*)?");
        assertThat(row.number("infiniband.bth.opcode")).as(what + " opcode").isEqualTo(packet.opcode().code());
        assertThat(row.number("infiniband.bth.destqp")).as(what + " QPN").isEqualTo(packet.bth().destQp());
        assertThat(row.number("infiniband.bth.psn")).as(what + " PSN").isEqualTo(packet.bth().psn());
        assertThat(row.number("infiniband.bth.padcnt")).as(what + " pad").isEqualTo(packet.bth().padCount());
        if (wiresharkMisreadsAsDct(packet.opcode())) {
            return false;
        }
        assertThat(row.get("_ws.malformed")).as(what + " malformed").isEmpty();
        for (String severity : row.all("_ws.expert.severity")) {
            assertThat(Long.decode(severity)).as(what + " expert severity").isLessThan(EXPERT_ERROR);
        }
        if (!wiresharkParsesHeadersOf(packet.opcode())) {
            return false;
        }
        assertThat(row.number("infiniband.invariant.crc")).as(what + " ICRC").isEqualTo(icrcAsWiresharkShowsIt(record));
        if (packet.opcode().has(HeaderType.RETH)) {
            Reth reth = packet.header(Reth.class).orElseThrow();
            assertThat(row.number("infiniband.reth.va")).as(what + " RETH va").isEqualTo(reth.virtualAddress());
            assertThat(row.number("infiniband.reth.r_key")).as(what + " RETH rkey").isEqualTo(Integer.toUnsignedLong(reth.rkey()));
            assertThat(row.number("infiniband.reth.dmalen")).as(what + " RETH length").isEqualTo(reth.dmaLengthUnsigned());
        }
        if (packet.opcode().has(HeaderType.ATOMIC_ETH)) {
            AtomicEth atomic = packet.header(AtomicEth.class).orElseThrow();
            assertThat(row.number("infiniband.reth.va")).as(what + " atomic va").isEqualTo(atomic.virtualAddress());
            assertThat(row.number("infiniband.reth.r_key")).as(what + " atomic rkey").isEqualTo(Integer.toUnsignedLong(atomic.rkey()));
            assertThat(row.number("infiniband.atomiceth.swapdt")).as(what + " swap/add").isEqualTo(atomic.swapOrAddData());
            assertThat(row.number("infiniband.atomiceth.cmpdt")).as(what + " compare").isEqualTo(atomic.compareData());
        }
        if (packet.opcode().has(HeaderType.AETH)) {
            Aeth aeth = packet.header(Aeth.class).orElseThrow();
            assertThat(row.number("infiniband.aeth.syndrome")).as(what + " syndrome").isEqualTo(aeth.syndromeByte());
            assertThat(row.number("infiniband.aeth.msn")).as(what + " MSN").isEqualTo(aeth.msn());
        }
        return true;
    }

    /** Wireshark treats transport 010 (RD) as Mellanox DCT: its BTH is then 20 bytes long. */
    private static boolean wiresharkMisreadsAsDct(Opcode opcode) {
        return opcode.transport() == Transport.RD;
    }

    /** RC, UC and UD headers Wireshark parses; not XRCETH, CNP, nor FLUSH / ATOMIC WRITE (before 4.4). */
    private static boolean wiresharkParsesHeadersOf(Opcode opcode) {
        Transport t = opcode.transport();
        return (t == Transport.RC || t == Transport.UC || t == Transport.UD)
                && opcode.kind() != OperationKind.FLUSH && opcode.kind() != OperationKind.ATOMIC_WRITE;
    }

    private static List<RocePacket> decodeAll(List<PcapRecord> records) {
        return records.stream().map(TsharkCrossCheckTest::decode).map(IbFrameOrRoce::packet).toList();
    }

    /** A record as roce4j decodes it: an ERF record of InfiniBand, else an Ethernet frame, RoCEv2 or RoCEv1. */
    private static IbFrameOrRoce decode(PcapRecord record) {
        java.util.Optional<byte[]> infiniband = ErfInfiniband.unwrap(record.data());
        if (infiniband.isPresent()) {
            return decoded(new IbDecoder().decodeInfiniband(infiniband.get()));
        }
        DecodeResult result = new RoceDecoder().decode(record.data());
        if (result instanceof DecodeResult.Dropped dropped && dropped.reason() == DropReason.NOT_IP) {
            return decoded(new IbDecoder().decodeRoceV1(record.data()));
        }
        assertThat(result).as("roce4j decodes every frame").isInstanceOf(DecodeResult.Decoded.class);
        return new IbFrameOrRoce(((DecodeResult.Decoded) result).frame().packet(), null);
    }

    private static IbFrameOrRoce decoded(IbDecodeResult result) {
        assertThat(result).as("roce4j decodes every frame").isInstanceOf(IbDecodeResult.Decoded.class);
        IbFrame frame = ((IbDecodeResult.Decoded) result).frame();
        return new IbFrameOrRoce(frame.packet(), frame);
    }

    private record IbFrameOrRoce(RocePacket packet, IbFrame ibFrame) {}

    /**
     * The link headers of RoCEv1 frames and InfiniBand packets as tshark reads them: LIDs, PktLen
     * and the VCRC (InfiniBand), PayLen and DGID (GRH) equal roce4j's.
     */
    private static void checkLinkHeaders(String name, List<PcapRecord> records, List<String[]> theirs) {
        for (int i = 0; i < records.size(); i++) {
            String what = name + " frame " + (i + 1);
            IbFrame frame = decode(records.get(i)).ibFrame();
            Row row = new Row(theirs.get(i));
            byte[] packet = ErfInfiniband.unwrap(records.get(i).data()).orElse(null);
            boolean crcShown = wiresharkParsesHeadersOf(frame.packet().opcode()); // as for the ICRC
            frame.lrh().ifPresent(lrh -> {
                assertThat(row.number("infiniband.lrh.dlid")).as(what + " DLID").isEqualTo(lrh.destinationLid());
                assertThat(row.number("infiniband.lrh.slid")).as(what + " SLID").isEqualTo(lrh.sourceLid());
                assertThat(row.number("infiniband.lrh.pktlen") * 4).as(what + " PktLen: LRH through ICRC")
                        .isEqualTo(packet.length - IbCrcCalculator.VCRC_LENGTH);
                if (crcShown) {
                    assertThat(row.number("infiniband.variant.crc")).as(what + " VCRC")
                            .isEqualTo((packet[packet.length - 2] & 0xFF) << 8 | packet[packet.length - 1] & 0xFF);
                }
            });
            frame.grh().ifPresent(grh -> {
                assertThat(row.get("infiniband.grh.dgid")).as(what + " DGID").isEqualTo(FrameText.address(grh.destinationGid()));
                assertThat(row.number("infiniband.grh.paylen")).as(what + " PayLen")
                        .isEqualTo(frame.packet().length() + IcrcCalculator.LENGTH);
            });
        }
    }

    /** The four ICRC bytes as Wireshark shows them: a big-endian number (on InfiniBand, before the VCRC). */
    private static long icrcAsWiresharkShowsIt(PcapRecord record) {
        byte[] b = ErfInfiniband.unwrap(record.data()).orElse(record.data());
        int at = b.length - IcrcCalculator.LENGTH
                - (ErfInfiniband.unwrap(record.data()).isPresent() ? IbCrcCalculator.VCRC_LENGTH : 0);
        return (b[at] & 0xFFL) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }

    private static List<String[]> tsharkFields(Path capture) throws Exception {
        List<String> command = new ArrayList<>(List.of(tshark, "-r", capture.toString(), "-n", "-T", "fields",
                "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,"));
        // roce4j's Wireshark profile, as `roce4j wireshark` uses it: payload heuristics off
        Path config = Files.createTempDirectory("roce4j-wireshark");
        WiresharkCommand.writeProfile(config.resolve("profiles").resolve(WiresharkCommand.PROFILE));
        command.addAll(List.of("-C", WiresharkCommand.PROFILE));
        for (String field : FIELDS) {
            command.addAll(List.of("-e", field));
        }
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("WIRESHARK_CONFIG_DIR", config.toString());
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("tshark exit code").isZero();
        return out.lines().map(line -> line.split("\t", -1)).toList();
    }

    private record Row(String[] values) {
        String get(String field) {
            return values[FIELDS.indexOf(field)];
        }

        List<String> all(String field) {
            String value = get(field);
            return value.isEmpty() ? List.of() : List.of(value.split(","));
        }

        long number(String field) {
            String value = get(field);
            assertThat(value).as("tshark field %s", field).isNotEmpty();
            return value.startsWith("0x") ? Long.parseUnsignedLong(value.substring(2), 16) : Long.parseLong(value);
        }
    }

    static String which(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }
}
