package org.roce4j.wire.ladder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.wire.ladder.LadderFrames.A;
import static org.roce4j.wire.ladder.LadderFrames.B;
import static org.roce4j.wire.ladder.LadderFrames.frame;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.roce4j.wire.Aeth;
import org.roce4j.wire.AethSyndrome;
import org.roce4j.wire.NakCode;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.Reth;

class LadderSvgTest {
    private static final Aeth ACK = Aeth.ack(AethSyndrome.Ack.INVALID_CREDIT_COUNT, 1);

    /** A WRITE of two packets, the second dropped; a sequence NAK; the resend; an RNR NAK; a pause of 500 ms; an ACK. */
    private static LadderFrames conversation() {
        return new LadderFrames()
                .add(1_000, frame(A, B, Opcode.RC_RDMA_WRITE_FIRST, 0x21, 0x10, 1024, new Reth(0x1000, 0x77, 2000)))
                .add(2_000, frame(A, B, Opcode.RC_RDMA_WRITE_LAST, 0x21, 0x11, 976), "dropped by rule 1")
                .add(3_000, frame(A, B, Opcode.RC_SEND_ONLY, 0x21, 0x12, 8))
                .add(4_000, frame(B, A, Opcode.RC_ACKNOWLEDGE, 0x11, 0x11, Aeth.nak(NakCode.PSN_SEQUENCE_ERROR, 1)))
                .add(5_000, frame(A, B, Opcode.RC_RDMA_WRITE_LAST, 0x21, 0x11, 976))
                .add(6_000, frame(B, A, Opcode.RC_ACKNOWLEDGE, 0x11, 0x11, Aeth.rnrNak(14, 1)))
                .add(500_006_000, frame(B, A, Opcode.RC_ACKNOWLEDGE, 0x11, 0x12, ACK));
    }

    /** The resend at frame 5, as a classifier would say. */
    private static final FrameClassifier FRAME_5_RESENT =
            (number, packet) -> number == 5 ? Optional.of("resent: test") : Optional.empty();

    private static int count(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (matcher.find()) {
            n++;
        }
        return n;
    }

    private static String arrowOf(String svg, int frame) {
        int start = svg.indexOf("id=\"frame-" + frame + "\"");
        return svg.substring(svg.lastIndexOf("<g ", start), svg.indexOf("</g>", start));
    }

    @Test
    void drawsOneArrowElementPerRoceFrameBetweenTheTwoEndsOfTheConnection() {
        Ladder ladder = conversation().ladder(FRAME_5_RESENT);
        String svg = LadderSvg.svg(ladder);

        assertThat(ladder.lifelines()).containsExactly(new Endpoint(A, 0x11), new Endpoint(B, 0x21));
        assertThat(count(svg, "<g class=\"arrow[ \"]")).isEqualTo(7);
        assertThat(svg).contains(">10.0.0.1 QP 0x000011<", ">10.0.0.2 QP 0x000021<");
        assertThat(arrowOf(svg, 1)).contains("RDMA Write First PSN 0x000010 RETH 2000 B, 1024 B");
    }

    @Test
    void aFrameTheFaultInjectorDroppedEndsInACrossNotAnArrowhead() {
        String svg = LadderSvg.svg(conversation().ladder(FrameClassifier.NONE));

        assertThat(arrowOf(svg, 2)).contains("class=\"arrow dropped\"", "class=\"cross\"", "✕ dropped",
                "comment: dropped by rule 1").doesNotContain("<polygon");
        assertThat(arrowOf(svg, 3)).contains("<polygon").doesNotContain("cross");
    }

    @Test
    void naksAndRnrNaksAreMarkedWithTheirCodeAndWait_IBTA_tables_44_45() {
        String svg = LadderSvg.svg(conversation().ladder(FrameClassifier.NONE));

        assertThat(arrowOf(svg, 4)).contains("class=\"arrow nak\"", "NAK PSN Sequence Error");
        assertThat(arrowOf(svg, 6)).contains("class=\"arrow rnr-nak\"", "RNR NAK 1.28 ms");
        assertThat(arrowOf(svg, 7)).contains("class=\"arrow\"");
    }

    @Test
    void aResentFrameCarriesTheClassifiersReason() {
        String svg = LadderSvg.svg(conversation().ladder(FRAME_5_RESENT));

        assertThat(arrowOf(svg, 5)).contains("class=\"arrow resent\"", "(resent)", "resent: test");
        assertThat(count(svg, "class=\"arrow resent\"")).isEqualTo(1);
    }

    @Test
    void aLongPauseIsCompressedAndSaysHowLongTheLinkWasIdle() {
        String svg = LadderSvg.svg(conversation().ladder(FrameClassifier.NONE));

        assertThat(count(svg, "<g class=\"gap\">")).isEqualTo(1);
        assertThat(svg).contains("500.000 ms idle");
        int before = y(arrowOf(svg, 6));
        int after = y(arrowOf(svg, 7));
        assertThat(after - before).isEqualTo(TimeAxis.GAP_HEIGHT + TimeAxis.ROW);
    }

    private static int y(String arrow) {
        Matcher matcher = Pattern.compile("<line x1=\"\\d+\" y1=\"(\\d+)\"").matcher(arrow);
        assertThat(matcher.find()).isTrue();
        return Integer.parseInt(matcher.group(1));
    }

    @Test
    void thePageNeedsNoScriptAndNothingFromTheNetwork() {
        String html = LadderSvg.html(conversation().ladder(FrameClassifier.NONE));

        assertThat(html).startsWith("<!DOCTYPE html>").contains("<svg", "<style>").doesNotContain("<script", "href=", "src=",
                "@import", "url(");
        assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http");
    }

    @Test
    void textFromTheCaptureIsEscaped() {
        Ladder ladder = new LadderFrames().add(0, frame(A, B, Opcode.RC_SEND_ONLY, 0x21, 1), "dropped by rule 2 <&\"x\">")
                .ladder(FrameClassifier.NONE);

        assertThat(LadderSvg.svg(ladder)).contains("&lt;&amp;&quot;x&quot;&gt;").doesNotContain("<&\"x\">");
    }

    @Test
    void framesPastTheLimitAreCountedNotDrawn() throws Exception {
        Ladder ladder;
        try (var reader = conversation().reader()) {
            ladder = CaptureLadder.read(reader, "t", FrameClassifier.NONE, 3);
        }

        assertThat(ladder.arrows()).hasSize(3);
        assertThat(ladder.frames()).isEqualTo(7);
        assertThat(ladder.notDrawn()).isEqualTo("4 RoCE frame(s) after the first 3");
        assertThat(LadderSvg.svg(ladder)).contains("3 of 7 frames drawn");
    }
}
