package org.roce4j.emulator.udp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.unix.SegmentedDatagramPacket;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.VirtualClock;

/** The transmit side's UDP GSO sends: tokens, order, drops and a kernel that refuses them (the pacer thread not started). */
class TransmitPacerTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.2", 4791);
    private static final int SEGMENT = 1040;

    private static TransmitPacer pacer(int burst, int queueFrames, AtomicLong sendFailures) {
        UdpLinkConfig config = UdpLinkConfig.DEFAULT.withPacketsPerSecond(1000).withBurst(burst)
                .withTransmitQueueFrames(queueFrames);
        return new TransmitPacer(config, new VirtualClock(), false, sendFailures);
    }

    private static byte[] payloads(int segments) {
        byte[] b = new byte[segments * SEGMENT];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i / SEGMENT);
        }
        return b;
    }

    @Test
    @DisplayName("With a token per segment and nothing paced, a GSO send goes to the event loop whole: segment size, bytes, counts")
    void aSendWithTokensGoesStraightToTheLoop() {
        EmbeddedChannel channel = new EmbeddedChannel();
        TransmitPacer pacer = pacer(8, 64, new AtomicLong());
        pacer.sendSegments(channel, payloads(8), 8 * SEGMENT, SEGMENT, 8, PEER);
        assertThat(pacer.framesQueued()).as("handed to the loop, not yet written").isEqualTo(8);
        channel.runPendingTasks();
        SegmentedDatagramPacket sent = channel.readOutbound();
        assertThat(sent.segmentSize()).isEqualTo(SEGMENT);
        assertThat(sent.recipient()).isEqualTo(PEER);
        assertThat(sent.content().readableBytes()).isEqualTo(8 * SEGMENT);
        assertThat(sent.content().getByte(7 * SEGMENT)).isEqualTo((byte) 7);
        sent.release();
        assertThat(pacer.framesSent()).as("a GSO send counts each frame").isEqualTo(8);
        assertThat(pacer.segmentedSends()).isEqualTo(1);
        assertThat(pacer.framesQueued()).isZero();

        // The send took its 8 tokens and no time passed: the next one waits for the pacer.
        pacer.sendSegments(channel, payloads(2), 2 * SEGMENT, SEGMENT, 2, PEER);
        channel.runPendingTasks();
        assertThat((Object) channel.readOutbound()).isNull();
        assertThat(pacer.framesQueued()).isEqualTo(2);
    }

    @Test
    @DisplayName("Without a token per segment the send waits in the pacer's queue; later sends queue behind it, in order")
    void tooFewTokensQueues() {
        EmbeddedChannel channel = new EmbeddedChannel();
        TransmitPacer pacer = pacer(4, 64, new AtomicLong());
        pacer.sendSegments(channel, payloads(8), 8 * SEGMENT, SEGMENT, 8, PEER);
        pacer.sendSegments(channel, payloads(2), 2 * SEGMENT, SEGMENT, 2, PEER); // the bucket has 4: still behind
        channel.runPendingTasks();
        assertThat((Object) channel.readOutbound()).as("nothing reaches the loop before the pacer").isNull();
        assertThat(pacer.framesQueued()).isEqualTo(10);
        assertThat(pacer.framesSent()).isZero();
    }

    @Test
    @DisplayName("A full transmit queue drops the whole GSO send and counts each of its frames")
    void aFullQueueDropsEveryFrame() {
        EmbeddedChannel channel = new EmbeddedChannel();
        TransmitPacer pacer = pacer(1, 1, new AtomicLong());
        pacer.sendSegments(channel, payloads(3), 3 * SEGMENT, SEGMENT, 3, PEER); // queued: the one place
        pacer.sendSegments(channel, payloads(5), 5 * SEGMENT, SEGMENT, 5, PEER); // dropped
        assertThat(pacer.transmitQueueDrops()).isEqualTo(5);
        assertThat(pacer.framesQueued()).isEqualTo(3);
    }

    @Test
    @DisplayName("A GSO send the kernel refuses is counted, and the link stops using GSO")
    void aRefusedSendTurnsSegmentationOff() {
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(new IOException("sendmsg: Input/output error (EIO)"));
            }
        });
        AtomicLong sendFailures = new AtomicLong();
        TransmitPacer pacer = pacer(8, 64, sendFailures);
        assertThat(pacer.segmentationRefused()).isFalse();
        pacer.sendSegments(channel, payloads(4), 4 * SEGMENT, SEGMENT, 4, PEER);
        channel.runPendingTasks();
        assertThat(sendFailures.get()).isEqualTo(1);
        assertThat(pacer.segmentationRefused()).isTrue();
    }
}
