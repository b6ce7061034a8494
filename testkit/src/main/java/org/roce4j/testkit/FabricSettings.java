package org.roce4j.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;

import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.fabric.Faults;
import org.roce4j.verbs.Mtu;

/**
 * An {@link EmulatedFabric} annotation read once per test, with the system properties that
 * override it applied, the MTU checked and the seed chosen.
 */
record FabricSettings(int nodes, Mtu mtu, Link link, long seed, boolean seedWasGiven, Faults faults,
                      DeviceProfile profile, Capture capture, int lastFrames, Path pcapDirectory) {

    /** {@code -Droce4j.seed=N}: replays a run. */
    static final String SEED_PROPERTY = "roce4j.seed";
    static final String LINK_PROPERTY = "roce4j.testkit.link";
    /** {@code -Droce4j.testkit.profile=rxe-6.12}: every test's RNICs model that device instead of the annotation's. */
    static final String PROFILE_PROPERTY = "roce4j.testkit.profile";
    static final String CAPTURE_PROPERTY = "roce4j.testkit.pcap";
    static final String PCAP_DIR_PROPERTY = "roce4j.testkit.pcapDir";
    static final String DEFAULT_PCAP_DIR = "target/roce4j-pcaps";
    /** Nodes get 10.0.0.1.. in process and 127.0.0.2.. on UDP: 250 fit either way. */
    static final int MAX_NODES = 250;

    static FabricSettings of(EmulatedFabric annotation) {
        if (annotation.nodes() < 1 || annotation.nodes() > MAX_NODES) {
            throw new ExtensionConfigurationException("@EmulatedFabric(nodes = " + annotation.nodes()
                    + "): between 1 and " + MAX_NODES);
        }
        Mtu mtu;
        try {
            mtu = Mtu.ofBytes(annotation.mtu());
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException("@EmulatedFabric(mtu = " + annotation.mtu() + "): " + e.getMessage(), e);
        }
        String seedText = System.getProperty(SEED_PROPERTY);
        long seed;
        boolean given;
        if (seedText != null && !seedText.isBlank()) {
            try {
                seed = Long.parseLong(seedText.trim());
            } catch (NumberFormatException e) {
                throw new ExtensionConfigurationException("-D" + SEED_PROPERTY + "=" + seedText + " is not a number", e);
            }
            given = true;
        } else if (annotation.seed() != EmulatedFabric.RANDOM_SEED) {
            seed = annotation.seed();
            given = true;
        } else {
            // Positive, so that it reads and types easily; 2^63 seeds are plenty.
            seed = new SplittableRandom().nextLong() >>> 1;
            given = false;
        }
        Link link = property(LINK_PROPERTY, Link.class, annotation.link());
        Faults faults = faults(annotation, seed);
        DeviceProfile profile = profile(annotation.profile());
        Capture capture = property(CAPTURE_PROPERTY, Capture.class, annotation.capture());
        Path directory = Path.of(System.getProperty(PCAP_DIR_PROPERTY, DEFAULT_PCAP_DIR));
        return new FabricSettings(annotation.nodes(), mtu, link, seed, given, faults, profile, capture,
                Math.max(0, annotation.lastFrames()), directory);
    }

    private static Faults faults(EmulatedFabric annotation, long seed) {
        Faults plan = Faults.seeded(seed);
        plan = annotation.drop() > 0 ? plan.drop(annotation.drop()) : plan;
        plan = annotation.duplicate() > 0 ? plan.duplicate(annotation.duplicate()) : plan;
        plan = annotation.corrupt() > 0 ? plan.corrupt(annotation.corrupt()) : plan;
        plan = annotation.reorder() > 0
                ? plan.reorder(annotation.reorder(), Duration.ofNanos(annotation.reorderWindowNanos()))
                : plan;
        try {
            return annotation.faults().getConstructor().newInstance().addTo(plan);
        } catch (ReflectiveOperationException e) {
            throw new ExtensionConfigurationException("@EmulatedFabric(faults = " + annotation.faults().getName()
                    + ".class): needs a public no-argument constructor", e);
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException("@EmulatedFabric: bad fault probability: " + e.getMessage(), e);
        }
    }

    private static DeviceProfile profile(DeviceProfile fallback) {
        String text = System.getProperty(PROFILE_PROPERTY);
        if (text == null || text.isBlank()) {
            return fallback;
        }
        try {
            return DeviceProfile.named(text.strip());
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException("-D" + PROFILE_PROPERTY + "=" + text + ": " + e.getMessage(), e);
        }
    }

    private static <E extends Enum<E>> E property(String name, Class<E> type, E fallback) {
        String text = System.getProperty(name);
        if (text == null || text.isBlank()) {
            return fallback;
        }
        try {
            return Enum.valueOf(type, text.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException("-D" + name + "=" + text + ": not one of "
                    + java.util.Arrays.toString(type.getEnumConstants()), e);
        }
    }

    /** What a failure report says to replay the run. */
    String replayHint() {
        return "-D" + SEED_PROPERTY + "=" + seed;
    }
}
