package org.roce4j.examples;

import static org.roce4j.testkit.RoceAssertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;

import org.junit.jupiter.api.Test;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.testkit.EmulatedFabric;
import org.roce4j.testkit.TestFabric;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;

class RingBufferExampleTest {

    @Test
    @EmulatedFabric(drop = 0.15, duplicate = 0.05, reorder = 0.1, corrupt = 0.02, profile = DeviceProfile.RXE_6_12)
    void twoHundredMessagesArriveOnceAndInOrderUnderFaults(TestFabric fabric, Context consumer, Context producer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(RingBufferExample.run(consumer, producer, 200, new PrintStream(out, true, StandardCharsets.UTF_8)))
                .isEqualTo(200);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("received message 180 ", "200 messages through an 8-slot ring");
        assertThat(fabric.fabric().faultCounters().dropped()).isPositive();
    }

    @Test
    @EmulatedFabric
    void aFullRingRefusesMessagesUntilTheConsumerReturnsCredit(Context consumerContext, Context producerContext) {
        try (Endpoint consumerSide = new Endpoint(consumerContext, 64); Endpoint producerSide = new Endpoint(producerContext, 64)) {
            Qp consumerQp = RcConnection.create(consumerSide, QpCap.of(8, 4), EnumSet.of(AccessFlag.REMOTE_WRITE));
            Qp producerQp = RcConnection.create(producerSide, QpCap.of(32, 1), EnumSet.of(AccessFlag.REMOTE_WRITE));
            Mr credit = RingProducer.creditWord(producerSide);
            RingConsumer consumer = new RingConsumer(consumerSide, consumerQp, 4, 16, credit.address(), credit.rkey());
            RcConnection.connect(consumerQp, 1, new RcConnection.Address(producerQp.qpNum(), 2, producerSide.gid()), Mtu.MTU_1024, 1);
            RcConnection.connect(producerQp, 2, new RcConnection.Address(consumerQp.qpNum(), 1, consumerSide.gid()), Mtu.MTU_1024, 1);
            RingProducer producer = new RingProducer(producerSide, producerQp, consumer.ring(), credit);

            for (int i = 0; i < 4; i++) {
                assertThat(producer.offer(new byte[] {(byte) i})).isTrue();
            }
            assertThat(producer.offer(new byte[] {4})).as("a fifth message into 4 slots").isFalse();
            assertThat(consumer.take()).containsExactly(0);
            assertThat(producer.offer(new byte[] {4})).as("one slot read is not yet credit (credit every 2)").isFalse();
            assertThat(consumer.take()).containsExactly(1);
            producer.flush();
            assertThat(producer.offer(new byte[] {4})).as("after the credit write").isTrue();
            assertThat(consumer.take()).containsExactly(2);
            assertThat(consumer.take()).containsExactly(3);
            assertThat(consumer.take()).containsExactly(4);
            assertThat(consumer.poll()).isEmpty();
        }
    }
}
