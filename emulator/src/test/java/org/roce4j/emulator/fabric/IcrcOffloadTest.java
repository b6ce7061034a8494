package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.fabric.TestFrames.A;
import static org.roce4j.emulator.fabric.TestFrames.B;
import static org.roce4j.emulator.fabric.TestFrames.frame;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.emulator.fabric.TestFrames.Arrival;

/**
 * ICRC offload and frames handed over on the in-process fabric: a sender may leave the ICRC out only
 * while nothing but offload-capable RNICs reads frames, a frame reaches its receiver as unchanged only
 * when no filter could have changed it, and a long frame handed over is queued without a copy.
 */
class IcrcOffloadTest {

    /** An RNIC-like receiver: takes frames without an ICRC, and records which entry each frame came through. */
    static class OffloadingReceiver implements FrameReceiver {
        final List<Arrival> checked = new ArrayList<>();
        final List<Arrival> unchanged = new ArrayList<>();
        final List<byte[]> arrays = new ArrayList<>();

        @Override
        public boolean takesFramesWithoutIcrc() {
            return true;
        }

        @Override
        public void onFrame(byte[] frame, int offset, int length, long nowNanos) {
            checked.add(new Arrival("checked", nowNanos, java.util.Arrays.copyOfRange(frame, offset, offset + length)));
        }

        @Override
        public void onUnchangedFrame(byte[] frame, int offset, int length, long nowNanos) {
            arrays.add(frame);
            unchanged.add(new Arrival("unchanged", nowNanos, java.util.Arrays.copyOfRange(frame, offset, offset + length)));
        }
    }

    private final Fabric fabric = Fabric.deterministic();
    private final OffloadingReceiver atA = new OffloadingReceiver();
    private final OffloadingReceiver atB = new OffloadingReceiver();
    private final FabricPort a = fabric.attach(A, atA);
    private final FabricPort b = fabric.attach(B, atB);

    @Test
    void onAFabricOfOffloadingReceiversAloneNoSenderNeedsTheIcrc() {
        assertThat(a.needsIcrc()).isFalse();
        assertThat(b.needsIcrc()).isFalse();
    }

    @Test
    void aTapMakesEverySenderComputeTheIcrc(@TempDir Path dir) throws IOException {
        fabric.tap(dir.resolve("t.pcap"));
        assertThat(a.needsIcrc()).isTrue();
    }

    @Test
    void aFilterMakesEverySenderComputeTheIcrcAndEveryReceiverCheckIt() {
        fabric.faults(Faults.seeded(1).drop(0.0));
        assertThat(a.needsIcrc()).isTrue();

        byte[] sent = frame(B, A, 0x5a, 64);
        a.transmitUnchanged(sent, 0, sent.length);
        fabric.runUntilIdle();

        assertThat(atB.unchanged).isEmpty();
        assertThat(atB.checked).singleElement().satisfies(arrival -> assertThat(arrival.bytes()).isEqualTo(sent));
    }

    @Test
    void aReceiverThatChecksEveryIcrcMakesEverySenderComputeIt() {
        fabric.attach(TestFrames.C, new TestFrames.Recorder("C"));
        assertThat(a.needsIcrc()).isTrue();
    }

    @Test
    void aFrameSentUnchangedReachesItsReceiverAsUnchangedAndAnOrdinaryOneAsChecked() {
        byte[] vouched = frame(B, A, 0x11, 64);
        byte[] ordinary = frame(B, A, 0x22, 64);
        a.transmitUnchanged(vouched, 0, vouched.length);
        a.transmit(ordinary, 0, ordinary.length);
        fabric.runUntilIdle();

        assertThat(atB.unchanged).singleElement().satisfies(arrival -> assertThat(arrival.bytes()).isEqualTo(vouched));
        assertThat(atB.checked).singleElement().satisfies(arrival -> assertThat(arrival.bytes()).isEqualTo(ordinary));
    }

    @Test
    void aLongFrameHandedOverIsQueuedItselfAndTheSenderGetsAnotherArray() {
        byte[] built = new byte[Fabric.MAX_FRAME_LENGTH];
        byte[] sent = frame(B, A, 0x33, FrameSwitch.HAND_OVER_MIN_LENGTH);
        System.arraycopy(sent, 0, built, 0, sent.length);

        byte[] next = a.transmitHandingOver(built, sent.length);
        fabric.runUntilIdle();

        assertThat(next).isNotSameAs(built).hasSizeGreaterThanOrEqualTo(Fabric.MAX_FRAME_LENGTH);
        assertThat(atB.arrays).singleElement().isSameAs(built);
        assertThat(atB.unchanged).singleElement().satisfies(arrival -> assertThat(arrival.bytes()).isEqualTo(sent));
    }

    @Test
    void aShortFrameHandedOverIsCopiedAndTheSenderKeepsItsArray() {
        byte[] built = new byte[Fabric.MAX_FRAME_LENGTH];
        byte[] sent = frame(B, A, 0x44, FrameSwitch.HAND_OVER_MIN_LENGTH - 1);
        System.arraycopy(sent, 0, built, 0, sent.length);

        byte[] next = a.transmitHandingOver(built, sent.length);
        java.util.Arrays.fill(built, (byte) 0); // the sender builds its next frame at once
        fabric.runUntilIdle();

        assertThat(next).isSameAs(built);
        assertThat(atB.unchanged).singleElement().satisfies(arrival -> assertThat(arrival.bytes()).isEqualTo(sent));
    }

    @Test
    void aFrameToNobodyHandedOverLeavesTheSenderItsArray() {
        byte[] built = new byte[Fabric.MAX_FRAME_LENGTH];
        byte[] sent = frame(TestFrames.NOBODY, A, 0x55, 2048);
        System.arraycopy(sent, 0, built, 0, sent.length);

        assertThat(a.transmitHandingOver(built, sent.length)).isSameAs(built);
        assertThat(fabric.counters().framesDroppedUnknownDestination()).isEqualTo(1);
    }

    @Test
    void aMulticastFrameHandedOverIsCopiedToEveryPortAndTheSenderKeepsItsArray() {
        byte[] built = new byte[Fabric.MAX_FRAME_LENGTH];
        byte[] sent = frame(org.roce4j.wire.MacAddress.parse("01:00:5e:00:00:01"), A, 0x66, 2048);
        System.arraycopy(sent, 0, built, 0, sent.length);

        assertThat(a.transmitHandingOver(built, sent.length)).isSameAs(built);
        fabric.runUntilIdle();
        assertThat(atB.arrays).singleElement().isNotSameAs(built);
    }

    @Test
    void aMalformedFrameHandedOverLeavesTheSenderItsArray() {
        byte[] built = new byte[Fabric.MAX_FRAME_LENGTH];
        assertThat(a.transmitHandingOver(built, FrameSwitch.ETHERNET_HEADER_LENGTH - 1)).isSameAs(built);
        assertThat(fabric.counters().framesDroppedMalformed()).isEqualTo(1);
    }

    @Test
    void aFrameHandedOverToAClosedFabricLeavesTheSenderItsArray() {
        byte[] built = new byte[Fabric.MAX_FRAME_LENGTH];
        byte[] sent = frame(B, A, 0x77, 2048);
        System.arraycopy(sent, 0, built, 0, sent.length);
        fabric.close();
        assertThat(a.transmitHandingOver(built, sent.length)).isSameAs(built);
    }
    /** A payload source that is a plain segment, readable until {@link #gone}. */
    static final class Memory implements PayloadReference.Source {
        final java.lang.foreign.MemorySegment segment;
        boolean gone;

        Memory(byte[] bytes) {
            segment = java.lang.foreign.MemorySegment.ofArray(bytes.clone());
        }

        @Override
        public java.lang.foreign.MemorySegment segment() {
            return segment;
        }

        @Override
        public boolean isReadable() {
            return !gone;
        }
    }

    /** {@code sent} built with its bytes from {@code payloadAt} on left out (zero), and a reference to them. */
    private static byte[] builtWithout(byte[] sent, int payloadAt) {
        byte[] built = new byte[Fabric.MAX_FRAME_LENGTH];
        System.arraycopy(sent, 0, built, 0, payloadAt);
        return built;
    }

    @Test
    void aPayloadByReferenceReachesAReceiverThatTakesNoneCopiedIntoItsFrame() {
        byte[] sent = frame(B, A, 0x3c, 2048);
        byte[] built = builtWithout(sent, 100);
        PayloadReference payload = new PayloadReference()
                .set(new Memory(java.util.Arrays.copyOfRange(sent, 100, 2048)), 0, 100, 1948);

        a.transmitHandingOver(built, sent.length, payload);
        fabric.runUntilIdle();

        assertThat(atB.arrays).singleElement().isSameAs(built);
        assertThat(atB.unchanged).singleElement().satisfies(arrival -> assertThat(arrival.bytes()).isEqualTo(sent));
    }

    @Test
    void aReceiverThatTakesReferencesGetsTheFrameWithoutItsPayloadAndWhereItIs() {
        List<String> seen = new ArrayList<>();
        fabric.attach(TestFrames.C, new OffloadingReceiver() {
            @Override
            public void onUnchangedFrame(byte[] frame, int offset, int length, long nowNanos, PayloadReference payload) {
                seen.add(frame[offset + 100] + " " + payload.frameOffset() + " " + payload.length() + " "
                        + payload.sourceOffset() + " " + payload.isReadable());
            }
        });
        byte[] sent = frame(TestFrames.C, A, 0x3d, 2048);
        Memory memory = new Memory(sent);
        a.transmitHandingOver(builtWithout(sent, 100), sent.length, new PayloadReference().set(memory, 100, 100, 1948));
        fabric.runUntilIdle();

        assertThat(seen).containsExactly("0 100 1948 100 true");
    }

    @Test
    void aTapSeesAFrameHandedOverByReferenceWhole(@TempDir Path dir) throws IOException {
        fabric.tap(dir.resolve("t.pcap"));
        byte[] sent = frame(B, A, 0x3e, 2048);
        a.transmitHandingOver(builtWithout(sent, 100), sent.length,
                new PayloadReference().set(new Memory(sent), 100, 100, 1948));
        fabric.runUntilIdle();
        fabric.close();

        byte[] captured = java.nio.file.Files.readAllBytes(dir.resolve("t.pcap"));
        assertThat(java.util.Arrays.copyOfRange(captured, captured.length - sent.length, captured.length)).isEqualTo(sent);
    }
}
