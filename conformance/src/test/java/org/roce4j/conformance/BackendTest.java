package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Verbs;

/** How a conformance test gets the devices it runs on: from its launcher session, else from roce4j.provider. */
class BackendTest {
    /** What {@link Probe} was handed, its first and second device (the launcher runs it on the calling thread). */
    private static final ThreadLocal<List<Device>> SEEN = new ThreadLocal<>();

    private final List<Device> emulated = Verbs.provider("emulator").orElseThrow().devices();

    /** A conformance test in miniature: it records the backend its constructor was given. */
    @ExtendWith(Backend.Resolver.class)
    static class Probe {
        private final Backend backend;

        Probe(Backend backend) {
            this.backend = backend;
        }

        @Test
        void record() {
            SEEN.set(List.of(backend.firstDevice(), backend.secondDevice()));
        }
    }

    @Test
    @DisplayName("the devices stored in a launcher session reach the constructor of every test that session runs")
    void storedDevicesReachTheTests() {
        Device second = emulated.get(1);
        List<Device> seen = runProbe(Backend.on(second, second));
        assertThat(seen).extracting(Device::name).containsExactly(second.name(), second.name());
    }

    @Test
    @DisplayName("with nothing stored (surefire, an IDE), tests get the selected provider's first two devices")
    void nothingStoredMeansTheSelectedProvider() {
        List<Device> seen = runProbe(null);
        assertThat(seen).extracting(Device::name).containsExactly(emulated.get(0).name(), emulated.get(1).name());
        assertThat(Backend.selectedProvider().provider().name()).isEqualTo("emulator");
    }

    @Test
    @DisplayName("two sessions at once each hand their own devices to their tests (no backend shared between runs)")
    void concurrentSessionsDoNotShare() throws Exception {
        Device first = emulated.get(0);
        Device second = emulated.get(1);
        var other = new AtomicReference<List<Device>>();
        Thread thread = Thread.ofPlatform().start(() -> other.set(runProbe(Backend.on(second, second))));
        List<Device> mine = runProbe(Backend.on(first, first));
        thread.join();
        assertThat(mine).extracting(Device::name).containsExactly(first.name(), first.name());
        assertThat(other.get()).extracting(Device::name).containsExactly(second.name(), second.name());
    }

    /** Runs {@link Probe} in a session of its own holding {@code backend} (none if null); what it saw. */
    private static List<Device> runProbe(Backend backend) {
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        try (LauncherSession session = LauncherFactory.openSession()) {
            if (backend != null) {
                backend.storeIn(session.getStore());
            }
            session.getLauncher().execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(DiscoverySelectors.selectClass(Probe.class))
                    .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
                    .build(), summary);
        }
        assertThat(summary.getSummary().getTestsSucceededCount()).as("the probe ran and passed").isEqualTo(1);
        List<Device> seen = SEEN.get();
        SEEN.remove();
        return seen;
    }
}
