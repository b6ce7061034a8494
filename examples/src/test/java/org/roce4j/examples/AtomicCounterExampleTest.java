package org.roce4j.examples;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.RnicCounter;
import org.roce4j.testkit.EmulatedFabric;
import org.roce4j.testkit.TestFabric;
import org.roce4j.verbs.Context;

class AtomicCounterExampleTest {

    @Test
    @EmulatedFabric(drop = 0.15, duplicate = 0.2, reorder = 0.1, profile = DeviceProfile.RXE_6_12)
    void ticketsStayUniqueWhenAtomicsAreRetransmittedAndDuplicated(TestFabric fabric, Context owner, Context client) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long total = AtomicCounterExample.run(owner, client, 100, new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(total).isEqualTo(200);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("200 unique tickets", "reset it");
        assertThat(fabric.fabric().faultCounters().duplicated()).isPositive();
        assertThat(fabric.node(0).rnic().counter(RnicCounter.DUPLICATE_REQUESTS))
                .as("duplicate atomics answered from saved results, not applied again").isPositive();
    }
}
