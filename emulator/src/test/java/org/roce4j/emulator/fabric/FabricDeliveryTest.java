package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.C;
import static org.roce4j.emulator.fabric.TestFrames.NOBODY;
import static org.roce4j.emulator.fabric.TestFrames.frame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.TestFrames.Recorder;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.RoceDecoder;

class FabricDeliveryTest {

    private final Fabric fabric = Fabric.deterministic();
    private final Recorder atA = new Recorder("A");
    private final Recorder atB = new Recorder("B");
    private final Recorder atC = new Recorder("C");
    private final FabricPort a = fabric.attach(A, atA);
    private final FabricPort b = fabric.attach(B, atB);

    {
        fabric.attach(C, atC);
    }

    @Test
    void aFrameReachesOnlyThePortWhoseMacIsItsDestination() {
        byte[] sent = frame(B, A, 0x5a, 64);
        a.transmit(sent, 0, sent.length);

        fabric.runUntilIdle();

        assertThat(atB.arrivals).singleElement().satisfies(arrival -> assertThat(arrival.bytes()).isEqualTo(sent));
        assertThat(atA.arrivals).isEmpty();
        assertThat(atC.arrivals).isEmpty();
        assertThat(fabric.counters()).isEqualTo(new FabricCounters(1, 1, 0, 0, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void aRealRoceFrameArrivesByteForByteAndStillDecodes() {
        byte[] sent = TestFrames.roceSend(C, B, 0x123456, "hello, fabric".getBytes());
        b.transmit(sent, 0, sent.length);

        fabric.runUntilIdle();

        byte[] received = atC.arrivals.getFirst().bytes();
        assertThat(received).isEqualTo(sent);
        assertThat(new RoceDecoder().decode(received)).isInstanceOf(DecodeResult.Decoded.class);
    }

    @Test
    void transmitCopiesTheSliceSoTheSenderMayReuseItsArray() {
        byte[] buffer = new byte[100];
        byte[] sent = frame(B, A, 0x33, 60);
        System.arraycopy(sent, 0, buffer, 7, sent.length);
        a.transmit(buffer, 7, sent.length);
        java.util.Arrays.fill(buffer, (byte) 0xEE);

        fabric.runUntilIdle();

        assertThat(atB.arrivals).singleElement().satisfies(arrival -> assertThat(arrival.bytes()).isEqualTo(sent));
    }

    @Test
    void aFrameToTheSendersOwnMacIsLoopedBack() {
        byte[] sent = frame(A, A, 1, 60);
        a.transmit(sent, 0, sent.length);

        fabric.runUntilIdle();

        assertThat(atA.arrivals).hasSize(1);
    }

    @Test
    void aFrameWithAnUnknownDestinationIsCountedAndDropped() {
        byte[] sent = frame(NOBODY, A, 1, 60);
        a.transmit(sent, 0, sent.length);

        assertThat(fabric.runUntilIdle()).isZero();
        assertThat(fabric.counters().framesDroppedUnknownDestination()).isEqualTo(1);
        assertThat(fabric.counters().framesTransmitted()).isEqualTo(1);
        assertThat(fabric.counters().framesDelivered()).isZero();
    }

    @Test
    void malformedFramesAreCountedAndNeverThrow() {
        byte[] ok = frame(B, A, 1, 60);
        a.transmit(ok, 0, 13); // shorter than an Ethernet header
        a.transmit(null, 0, 60);
        a.transmit(ok, 10, 60); // slice past the end of the array
        a.transmit(ok, -1, 20);
        byte[] giant = frame(B, A, 1, Fabric.MAX_FRAME_LENGTH + 1);
        a.transmit(giant, 0, giant.length);
        byte[] jumbo = frame(B, A, 2, Fabric.MAX_FRAME_LENGTH);
        a.transmit(jumbo, 0, jumbo.length);

        fabric.runUntilIdle();

        assertThat(fabric.counters().framesDroppedMalformed()).isEqualTo(5);
        assertThat(atB.arrivals).singleElement().satisfies(arrival -> assertThat(arrival.bytes()).isEqualTo(jumbo));
    }

    @Test
    void attachingASecondPortWithTheSameMacIsRefused() {
        assertThatThrownBy(() -> fabric.attach(B, new Recorder("B2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("02:00:00:00:00:0b");
    }

    @Test
    void aReceiverThatThrowsIsCountedReportedAndTheNextFrameStillArrives() {
        List<String> reported = new ArrayList<>();
        fabric.onCallbackFailure((where, failure) -> reported.add(where + ": " + failure.getMessage()));
        Recorder afterFailure = new Recorder("D");
        boolean[] thrown = {false};
        FabricPort d = fabric.attach(org.roce4j.wire.MacAddress.parse("02:00:00:00:00:0d"), (frame, off, len, now) -> {
            if (!thrown[0]) {
                thrown[0] = true;
                throw new IllegalStateException("receiver bug");
            }
            afterFailure.onFrame(frame, off, len, now);
        });
        byte[] sent = frame(d.mac(), A, 1, 60);
        a.transmit(sent, 0, sent.length);
        a.transmit(sent, 0, sent.length);

        fabric.runUntilIdle();

        assertThat(reported).singleElement().asString().contains("receiver bug").contains("02:00:00:00:00:0d");
        assertThat(afterFailure.arrivals).hasSize(1);
        assertThat(fabric.counters().callbackFailures()).isEqualTo(1);
        assertThat(fabric.counters().framesDelivered()).isEqualTo(2);
    }

    @Test
    void aFailureHandlerThatRethrowsReachesTheCallerOfStepAndTheFabricGoesOn() {
        fabric.onCallbackFailure((where, failure) -> {
            throw new AssertionError(where, failure);
        });
        fabric.addAgent(new Agent() {
            boolean failed;

            @Override
            public int doWork(long nowNanos) {
                if (!failed) {
                    failed = true;
                    throw new IllegalStateException("agent bug");
                }
                return 0;
            }
        });

        assertThatThrownBy(fabric::step).isInstanceOf(AssertionError.class).hasRootCauseMessage("agent bug");
        byte[] sent = frame(B, A, 1, 60);
        a.transmit(sent, 0, sent.length);
        fabric.runUntilIdle();
        assertThat(atB.arrivals).hasSize(1);
    }

    @Test
    void afterCloseTransmitsAreDroppedAndCountedAndQueuedFramesToo() {
        byte[] sent = frame(B, A, 1, 60);
        a.transmit(sent, 0, sent.length);
        fabric.close();
        a.transmit(sent, 0, sent.length);

        assertThat(fabric.step()).isFalse();
        assertThat(fabric.counters().framesDroppedClosed()).isEqualTo(2);
        assertThat(fabric.counters().framesInFlight()).isZero();
        assertThat(atB.arrivals).isEmpty();
    }
}
