package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/**
 * The flyweight reads what the records read: for random frames of every opcode, each accessor of a
 * parsed {@link PacketInfo} equals the field of the record {@link RoceDecoder} decodes from the same
 * bytes — the emulator's hot path and the analysis library cannot disagree about a frame.
 */
class PacketInfoAccessorsTest {
    @Test
    void everyAccessorEqualsTheDecodedRecordsField() {
        PacketInfo info = new PacketInfo();
        qt().withExamples(2000).forAll(WireGenerators.frames(300)).checkAssert(frame -> {
            byte[] bytes = new FrameEncoder().encode(frame);
            assertThat(info.parseFrame(bytes, 0, bytes.length)).isTrue();
            RoceFrame decoded = ((DecodeResult.Decoded) new RoceDecoder().decode(bytes)).frame();
            Bth bth = decoded.packet().bth();
            assertThat(info.opcode()).isEqualTo(bth.opcode());
            assertThat(info.solicitedEvent()).isEqualTo(bth.solicitedEvent());
            assertThat(info.migReq()).isEqualTo(bth.migReq());
            assertThat(info.padCount()).isEqualTo(bth.padCount());
            assertThat(info.pkey()).isEqualTo(bth.pkey());
            assertThat(info.fecn()).isEqualTo(bth.fecn());
            assertThat(info.becn()).isEqualTo(bth.becn());
            assertThat(info.destQp()).isEqualTo(bth.destQp());
            assertThat(info.ackReq()).isEqualTo(bth.ackReq());
            assertThat(info.psn()).isEqualTo(bth.psn());
            assertThat(info.ipVersion()).isEqualTo(decoded.ip().version());
            assertThat(Arrays.copyOfRange(bytes, info.ipSourceOffset(), info.ipSourceOffset() + info.ipAddressLength()))
                    .isEqualTo(decoded.ip().source().getAddress());
            assertThat(Arrays.copyOfRange(bytes, info.ipDestinationOffset(),
                    info.ipDestinationOffset() + info.ipAddressLength())).isEqualTo(decoded.ip().destination().getAddress());
            assertThat(info.payloadLength()).isEqualTo(decoded.packet().payload().length);
            assertThat(Arrays.copyOfRange(bytes, info.payloadOffset(), info.payloadOffset() + info.payloadLength()))
                    .isEqualTo(decoded.packet().payload());
            assertThat(info.icrcStatus()).isEqualTo(IcrcStatus.VALID);
            assertThat(info.datagramEnd()).isEqualTo(bytes.length);
            assertThat(info.icrc()).isEqualTo(IcrcCalculator.read(bytes, bytes.length - 4));
            for (ExtensionHeader header : decoded.packet().headers()) {
                switch (header) {
                    case Reth r -> {
                        assertThat(info.rethVirtualAddress()).isEqualTo(r.virtualAddress());
                        assertThat(info.rethRkey()).isEqualTo(r.rkey());
                        assertThat(info.rethDmaLength()).isEqualTo(r.dmaLength());
                    }
                    case Aeth a -> {
                        assertThat(info.aethSyndrome()).isEqualTo(a.syndromeByte());
                        assertThat(info.aethMsn()).isEqualTo(a.msn());
                    }
                    case Deth d -> {
                        assertThat(info.dethQkey()).isEqualTo(d.qkey());
                        assertThat(info.dethSourceQp()).isEqualTo(d.sourceQp());
                    }
                    case ImmDt i -> assertThat(info.immediateData()).isEqualTo(i.immediateData());
                    case Ieth i -> assertThat(info.invalidateRkey()).isEqualTo(i.rkey());
                    case AtomicEth a -> {
                        assertThat(info.atomicVirtualAddress()).isEqualTo(a.virtualAddress());
                        assertThat(info.atomicRkey()).isEqualTo(a.rkey());
                        assertThat(info.atomicSwapOrAdd()).isEqualTo(a.swapOrAddData());
                        assertThat(info.atomicCompare()).isEqualTo(a.compareData());
                    }
                    case AtomicAckEth a -> assertThat(info.atomicOriginalData()).isEqualTo(a.originalData());
                    default -> { }
                }
            }
        });
    }
}
