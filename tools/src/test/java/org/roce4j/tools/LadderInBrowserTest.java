package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.pcap.CaptureReader;

/**
 * The ladder pages as a real browser shows them: Debian's chromium, headless, renders the demo's
 * and the lossy demo's diagrams. Its DOM (what it parsed, {@code --dump-dom}) holds exactly one arrow
 * element per frame of the capture, and its screenshot is a picture: many colours, a fair share of
 * pixels that are not white, and the arrows' colours among them (the NAKs' red and the drops' orange
 * on the lossy one). Without chromium the test is skipped loudly — and fails in CI ({@code .ci/run}
 * installs it). The screenshots stay in {@code tools/target/ladder/}: docs/ladder-demo.png is the
 * demo's.
 */
class LadderInBrowserTest {
    private static final Path SCREENSHOTS = Path.of("target", "ladder");
    private static final int WHITE = 0xFFFFFF;
    private static final int ARROW_BLUE = 0x1F4E79;
    private static final int NAK_RED = 0xC00000;
    private static final int DROPPED_ORANGE = 0xD04000;

    private static String chromium;

    @TempDir
    Path dir;

    @BeforeAll
    static void findChromium() {
        chromium = Stream.of("chromium", "chromium-browser", "google-chrome").map(TsharkCrossCheckTest::which)
                .filter(path -> path != null).findFirst().orElse(null);
    }

    private static void requireChromium() {
        RequiredInCi.require(chromium != null, "chromium: the ladder's browser test did NOT run (apt-get install chromium)");
    }

    @Test
    @DisplayName("chromium renders the demo's ladder: one arrow element per frame, a picture that is not blank")
    void demoLadderRendersInABrowser() throws Exception {
        requireChromium();
        Rendered page = render(TestCaptures.committed("demo.pcap"), "demo");

        assertThat(page.arrowsInDom()).isEqualTo(page.framesInCapture()).isEqualTo(23);
        assertThat(page.colours()).hasSizeGreaterThan(8);
        assertThat(page.nonWhiteShare()).isGreaterThan(0.02);
        assertThat(page.hasColourNear(ARROW_BLUE)).isTrue();
    }

    @Test
    @DisplayName("chromium renders the lossy demo's ladder: one arrow element per frame, NAKs red, drops in orange")
    void lossyDemoLadderRendersInABrowser() throws Exception {
        requireChromium();
        Rendered page = render(LadderCommandTest.lossyDemoCapture(dir), "lossy-demo");

        assertThat(page.arrowsInDom()).isEqualTo(page.framesInCapture()).isGreaterThan(23);
        assertThat(page.colours()).hasSizeGreaterThan(8);
        assertThat(page.nonWhiteShare()).isGreaterThan(0.02);
        assertThat(page.hasColourNear(NAK_RED)).isTrue();
        assertThat(page.hasColourNear(DROPPED_ORANGE)).isTrue();
    }

    /** What the browser made of one page. */
    private record Rendered(long framesInCapture, int arrowsInDom, BufferedImage screenshot) {
        Set<Integer> colours() {
            Set<Integer> colours = new HashSet<>();
            for (int y = 0; y < screenshot.getHeight(); y++) {
                for (int x = 0; x < screenshot.getWidth(); x++) {
                    colours.add(screenshot.getRGB(x, y) & 0xFFFFFF);
                }
            }
            return colours;
        }

        double nonWhiteShare() {
            long nonWhite = 0;
            for (int y = 0; y < screenshot.getHeight(); y++) {
                for (int x = 0; x < screenshot.getWidth(); x++) {
                    nonWhite += (screenshot.getRGB(x, y) & 0xFFFFFF) == WHITE ? 0 : 1;
                }
            }
            return (double) nonWhite / ((long) screenshot.getWidth() * screenshot.getHeight());
        }

        /** Some pixel within a small distance of {@code rgb} (edges are anti-aliased, fills are not). */
        boolean hasColourNear(int rgb) {
            return colours().stream().anyMatch(c -> Math.abs((c >> 16) - (rgb >> 16)) + Math.abs((c >> 8 & 0xFF) - (rgb >> 8 & 0xFF))
                    + Math.abs((c & 0xFF) - (rgb & 0xFF)) <= 24);
        }
    }

    private Rendered render(Path capture, String name) throws Exception {
        Path page = dir.resolve(name + ".html");
        TestCaptures.Run ladder = TestCaptures.run("ladder", capture.toString(), "-o", page.toString());
        assertThat(ladder.exitCode()).as(ladder.err()).isZero();
        String html = Files.readString(page);
        Matcher size = Pattern.compile("<svg [^>]*width=\"(\\d+)\" height=\"(\\d+)\"").matcher(html);
        assertThat(size.find()).isTrue();
        int width = Integer.parseInt(size.group(1));
        int height = Math.min(Integer.parseInt(size.group(2)), 4000);

        String dom = chromium(page, "--dump-dom");
        Files.createDirectories(SCREENSHOTS);
        Path png = SCREENSHOTS.resolve(name + ".png").toAbsolutePath();
        Files.deleteIfExists(png);
        chromium(page, "--screenshot=" + png, "--window-size=" + width + "," + height);
        BufferedImage screenshot = ImageIO.read(png.toFile());
        assertThat(screenshot).as("chromium's screenshot %s", png).isNotNull();
        return new Rendered(frames(capture), count(dom, "<g class=\"arrow[ \"]"), screenshot);
    }

    /** Runs headless chromium on {@code page} with {@code args}; returns what it printed (the DOM for --dump-dom). */
    private String chromium(Path page, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--no-first-run", "--user-data-dir=" + dir.resolve("profile")));
        command.addAll(List.of(args));
        command.add(page.toUri().toString());
        Path log = dir.resolve("chromium.log");
        Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("chromium did not finish in 60 s: " + command);
        }
        assertThat(process.exitValue()).as("chromium %s: %s", command, Files.readString(log)).isZero();
        return new String(out, StandardCharsets.UTF_8);
    }

    private static long frames(Path capture) throws IOException {
        long frames = 0;
        try (CaptureReader reader = CaptureReader.open(capture)) {
            for (var ignored : reader) {
                frames++;
            }
        }
        return frames;
    }

    private static int count(String text, String regex) {
        int n = 0;
        for (Matcher m = Pattern.compile(regex).matcher(text); m.find(); ) {
            n++;
        }
        return n;
    }
}
