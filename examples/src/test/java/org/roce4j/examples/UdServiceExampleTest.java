package org.roce4j.examples;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.roce4j.testkit.EmulatedFabric;
import org.roce4j.testkit.TestFabric;
import org.roce4j.verbs.Context;

class UdServiceExampleTest {

    @Test
    @EmulatedFabric(drop = 0.25, duplicate = 0.1, seed = 3)
    void everyCallIsAnsweredWhenLostDatagramsAreRepeated(TestFabric fabric, Context server, Context client) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long sends = UdServiceExample.run(server, client, 30, Duration.ofMillis(20),
                new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(out.toString(StandardCharsets.UTF_8)).contains("hello rdma 25 -> HELLO RDMA 25", "30 calls");
        assertThat(fabric.fabric().faultCounters().dropped()).isPositive();
        assertThat(sends).as("requests repeated after losses").isGreaterThan(30);
    }

    @Test
    @EmulatedFabric
    void withoutFaultsEachCallIsOneDatagram(Context server, Context client) {
        long sends = UdServiceExample.run(server, client, 10, Duration.ofSeconds(5),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(sends).isEqualTo(10);
    }
}
