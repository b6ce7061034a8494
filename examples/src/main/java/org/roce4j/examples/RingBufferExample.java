package org.roce4j.examples;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;

/**
 * A ring buffer over RDMA WRITE with immediate: a producer pushes messages into a consumer's ring,
 * the consumer returns credit. Run: {@code examples/run RingBufferExample [--server DEV] [--client DEV]}
 * (the server is the consumer).
 */
public final class RingBufferExample {
    private RingBufferExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--server DEVICE] [--client DEVICE]}
     */
    public static void main(String[] args) {
        ExampleDevices devices = ExampleDevices.from(args);
        try (Context consumer = devices.server().open(); Context producer = devices.client().open()) {
            run(consumer, producer, 100, System.out);
        }
    }

    /**
     * Sends {@code messages} messages through an 8-slot ring and checks each arrives, in order.
     *
     * @param consumerContext the consumer's device
     * @param producerContext the producer's device
     * @param messages        how many
     * @param out             where to print
     * @return the messages received
     * @throws RdmaFailure if a message is lost, reordered or wrong
     */
    public static long run(Context consumerContext, Context producerContext, int messages, PrintStream out) {
        int slots = 8;
        try (Endpoint consumerSide = new Endpoint(consumerContext, 64); Endpoint producerSide = new Endpoint(producerContext, 64)) {
            Qp consumerQp = RcConnection.create(consumerSide, QpCap.of(2 * slots, slots), EnumSet.of(AccessFlag.REMOTE_WRITE));
            Qp producerQp = RcConnection.create(producerSide, QpCap.of(8 * slots, 1), EnumSet.of(AccessFlag.REMOTE_WRITE));
            Mr credit = RingProducer.creditWord(producerSide);
            RingConsumer consumer = new RingConsumer(consumerSide, consumerQp, slots, 256, credit.address(), credit.rkey());
            RcConnection.Address consumerAddress = new RcConnection.Address(consumerQp.qpNum(), 0x3000, consumerSide.gid());
            RcConnection.Address producerAddress = new RcConnection.Address(producerQp.qpNum(), 0x4000, producerSide.gid());
            RcConnection.connect(consumerQp, consumerAddress.psn(), producerAddress, Mtu.MTU_1024, 1);
            RcConnection.connect(producerQp, producerAddress.psn(), consumerAddress, Mtu.MTU_1024, 1);

            RingProducer producer = new RingProducer(producerSide, producerQp, consumer.ring(), credit);
            int received = 0;
            for (int i = 0; i < messages; i++) {
                while (!producer.offer(message(i))) {
                    received += drain(consumer, received, out); // the ring is full: let the consumer catch up
                }
            }
            while (received < messages) {
                check(consumer.take(), received++, out);
            }
            producer.flush();
            out.println(received + " messages through an " + slots + "-slot ring");
            return received;
        }
    }

    private static int drain(RingConsumer consumer, int received, PrintStream out) {
        int n = 0;
        for (var message = consumer.poll(); message.isPresent(); message = consumer.poll()) {
            check(message.get(), received + n++, out);
        }
        return n;
    }

    private static byte[] message(int i) {
        return ("message " + i + " " + "*".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
    }

    private static void check(byte[] got, int i, PrintStream out) {
        if (!java.util.Arrays.equals(got, message(i))) {
            throw new RdmaFailure("message " + i + " arrived as '" + new String(got, StandardCharsets.UTF_8) + "'");
        }
        if (i % 20 == 0) {
            out.println("received " + new String(got, StandardCharsets.UTF_8));
        }
    }
}
