package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.Bth;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.Deth;
import org.roce4j.wire.DropReason;
import org.roce4j.wire.FrameEncoder;
import org.roce4j.wire.IcrcCalculator;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Reth;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.UdpHeader;
import org.roce4j.wire.pcap.PcapRecord;

class FrameRewriterTest {
    private static final Path ALL_OPCODES = TestCaptures.committed(AllOpcodesCapture.IPV4_FILE);
    private static final Path ALL_OPCODES_IPV6 = TestCaptures.committed(AllOpcodesCapture.IPV6_FILE);
    private static final String ADDRESSES = "src-mac=02:00:00:00:00:aa,dst-mac=52:54:00:00:77:02,src-ip=192.168.77.1,dst-ip=192.168.77.2";

    private static byte[] only(FrameRewriter.Outcome outcome) {
        assertThat(outcome).isInstanceOf(FrameRewriter.Outcome.Rewritten.class);
        return ((FrameRewriter.Outcome.Rewritten) outcome).frame();
    }

    private static RoceFrame decodedWithGoodIcrc(byte[] frame) {
        DecodeResult result = new RoceDecoder().decode(frame);
        assertThat(result).as("the rewritten frame decodes with a good ICRC").isInstanceOf(DecodeResult.Decoded.class);
        return ((DecodeResult.Decoded) result).frame();
    }

    @Test
    @DisplayName("with no rewrite rules every frame of all-opcodes (IPv4 and IPv6) goes out byte for byte as captured")
    void noRulesChangeNoByte() throws IOException {
        for (Path file : List.of(ALL_OPCODES, ALL_OPCODES_IPV6)) {
            FrameRewriter rewriter = new FrameRewriter(RewriteRules.NONE, false);
            for (PcapRecord record : TestCaptures.read(file)) {
                assertThat(only(rewriter.rewrite(record.data()))).as(file.getFileName() + " at " + record.timestampNanos())
                        .isEqualTo(record.data());
            }
        }
    }

    @Test
    @DisplayName("after rewriting MACs, IPs, QPN and PSN the frame carries them and its ICRC and IPv4 checksum are good again")
    void rewrittenFrameHasAGoodIcrc() throws IOException {
        PcapRecord writeFirst = TestCaptures.read(ALL_OPCODES).get(6); // RC RDMA Write First QP=0x000012 PSN=0xfffffe
        RewriteRules rules = RewriteRules.parse(List.of(ADDRESSES + ",qpn=0x12:0x345,psn=+3"));

        byte[] rewritten = only(new FrameRewriter(rules, false).rewrite(writeFirst.data()));

        RoceFrame frame = decodedWithGoodIcrc(rewritten); // the decoder checks the IPv4 header checksum and the ICRC
        RoceFrame before = decodedWithGoodIcrc(writeFirst.data());
        assertThat(frame.ethernet().source()).isEqualTo(MacAddress.parse("02:00:00:00:00:aa"));
        assertThat(frame.ethernet().destination()).isEqualTo(MacAddress.parse("52:54:00:00:77:02"));
        assertThat(frame.ip().source()).isEqualTo(InetAddress.ofLiteral("192.168.77.1"));
        assertThat(frame.ip().destination()).isEqualTo(InetAddress.ofLiteral("192.168.77.2"));
        Bth bth = frame.packet().bth();
        assertThat(bth.destQp()).isEqualTo(0x345);
        assertThat(bth.psn()).as("0xfffffe + 3 wraps to 0x000001 (24-bit PSNs)").isEqualTo(0x000001);
        assertThat(frame.packet().header(Reth.class)).isEqualTo(before.packet().header(Reth.class));
        assertThat(frame.packet().payload()).isEqualTo(before.packet().payload());
        assertThat(rewritten).hasSameSizeAs(writeFirst.data());
    }

    @Test
    @DisplayName("a frame whose QPN is not the rule's keeps its QPN; psn=-1 goes back one, modulo 2^24")
    void otherQpsAndNegativeShifts() throws IOException {
        PcapRecord sendFirst = TestCaptures.read(ALL_OPCODES).getFirst(); // RC Send First QP=0x000012 PSN=0xfffff8
        RewriteRules rules = RewriteRules.parse(List.of("qpn=0x99:0x98,psn=-0xfffff9"));

        RoceFrame frame = decodedWithGoodIcrc(only(new FrameRewriter(rules, false).rewrite(sendFirst.data())));

        assertThat(frame.packet().bth().destQp()).isEqualTo(0x12);
        assertThat(frame.packet().bth().psn()).isEqualTo(0xffffff);
    }

    @Test
    @DisplayName("qpn=OLD:NEW also changes a UD frame's DETH source QP that is OLD")
    void udSourceQpIsRewritten() throws IOException {
        byte[] ud = TestCaptures.read(ALL_OPCODES).get(61).data(); // UD Send Only QP=0x000042, DETH srcQP=0x000041
        RewriteRules rules = RewriteRules.parse(List.of("qpn=0x41:0x777"));

        RoceFrame frame = decodedWithGoodIcrc(only(new FrameRewriter(rules, false).rewrite(ud)));

        assertThat(frame.packet().bth().opcode()).isEqualTo(Opcode.UD_SEND_ONLY);
        assertThat(frame.packet().bth().destQp()).isEqualTo(0x42);
        assertThat(frame.packet().header(Deth.class)).map(Deth::sourceQp).contains(0x777);
    }

    @Test
    @DisplayName("an IPv4 frame that had a UDP checksum gets the checksum of its new addresses; one without keeps 0")
    void udpChecksumIsRecomputedWhenThereWasOne() throws IOException {
        byte[] captured = TestCaptures.read(ALL_OPCODES).getFirst().data();
        RoceFrame original = decodedWithGoodIcrc(captured);
        byte[] withChecksum = new FrameEncoder().encode(new RoceFrame(original.ethernet(), original.ip(),
                original.udp().withChecksum(0x1234), original.packet()));
        int ipOffset = original.ethernet().length();
        RewriteRules rules = RewriteRules.parse(List.of(ADDRESSES));

        byte[] rewritten = only(new FrameRewriter(rules, false).rewrite(withChecksum));
        byte[] rewrittenWithout = only(new FrameRewriter(rules, false).rewrite(captured));

        int udpLength = rewritten.length - ipOffset - 20;
        assertThat(decodedWithGoodIcrc(rewritten).udp().checksum())
                .isEqualTo(UdpHeader.checksum(rewritten, ipOffset, udpLength)).isNotZero();
        assertThat(original.udp().checksum()).isZero();
        assertThat(decodedWithGoodIcrc(rewrittenWithout).udp().checksum()).isZero();
    }

    @Test
    @DisplayName("a frame captured with a bad ICRC stays bad with --keep-bad-icrc, wrong by the same bits, and is repaired without it")
    void badIcrcStaysBadOnlyWhenKept() throws IOException {
        byte[] captured = TestCaptures.read(ALL_OPCODES).get(6).data();
        byte[] spoiled = captured.clone();
        spoiled[spoiled.length - 2] ^= 0x40;
        RewriteRules rules = RewriteRules.parse(List.of(ADDRESSES + ",qpn=0x12:0x345,psn=+3"));

        FrameRewriter.Outcome.Rewritten kept = (FrameRewriter.Outcome.Rewritten) new FrameRewriter(rules, true).rewrite(spoiled);
        FrameRewriter.Outcome.Rewritten repaired = (FrameRewriter.Outcome.Rewritten) new FrameRewriter(rules, false).rewrite(spoiled);

        assertThat(kept.badIcrc()).isTrue();
        DecodeResult keptResult = new RoceDecoder().decode(kept.frame());
        assertThat(keptResult).isInstanceOfSatisfying(DecodeResult.Dropped.class,
                dropped -> assertThat(dropped.reason()).isEqualTo(DropReason.BAD_ICRC));
        byte[] good = only(new FrameRewriter(rules, false).rewrite(captured));
        int icrc = good.length - IcrcCalculator.LENGTH;
        for (int i = 0; i < IcrcCalculator.LENGTH; i++) {
            assertThat(kept.frame()[icrc + i] ^ good[icrc + i]).as("ICRC byte " + i).isEqualTo(i == 2 ? 0x40 : 0);
        }
        assertThat(repaired.badIcrc()).isFalse();
        assertThat(repaired.frame()).isEqualTo(good);
        FrameRewriter.Outcome.Rewritten goodKept =
                (FrameRewriter.Outcome.Rewritten) new FrameRewriter(RewriteRules.NONE, true).rewrite(captured);
        assertThat(goodKept.badIcrc()).as("--keep-bad-icrc leaves a good ICRC good").isFalse();
        assertThat(goodKept.frame()).isEqualTo(captured);
    }

    @Test
    @DisplayName("a frame that is not RoCEv2 is not rewritten: its drop reason says why")
    void nonRoceFramesAreNotRewritten() {
        byte[] arp = new byte[60];
        arp[12] = 0x08;
        arp[13] = 0x06;

        FrameRewriter.Outcome outcome = new FrameRewriter(RewriteRules.NONE, false).rewrite(arp);

        assertThat(outcome).isInstanceOfSatisfying(FrameRewriter.Outcome.NotRewritable.class,
                not -> assertThat(not.why()).startsWith(DropReason.NOT_IP.name()));
    }

    @Test
    @DisplayName("an IPv4 address is refused for an IPv6 frame, naming both")
    void addressFamilyMustMatch() throws IOException {
        byte[] v6 = TestCaptures.read(ALL_OPCODES_IPV6).getFirst().data();
        FrameRewriter rewriter = new FrameRewriter(RewriteRules.parse(List.of("dst-ip=192.168.77.2")), false);

        assertThatThrownBy(() -> rewriter.rewrite(v6)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("192.168.77.2 is not an IPv6 address, and the frame is IPv6");
    }
}
