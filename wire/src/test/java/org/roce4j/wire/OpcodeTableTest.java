package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.wire.HeaderType.*;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class OpcodeTableTest {

    @Test
    void opcodeCodesAreTransportPrefixOrOperation() {
        for (Opcode opcode : Opcode.values()) {
            assertThat(opcode.code()).isEqualTo(opcode.transport().prefix() | opcode.operation().code());
            assertThat(Opcode.lookup(opcode.code())).isSameAs(opcode);
        }
    }

    @Test
    void ibtaTable38DefinesTheseCodesAndNoOthers() {
        Set<Integer> defined = IntStream.range(0, 256).filter(c -> Opcode.lookup(c) != null).boxed().collect(Collectors.toSet());
        Set<Integer> expected = new java.util.TreeSet<>();
        IntStream.rangeClosed(0x00, 0x14).forEach(expected::add);                  // RC
        expected.addAll(List.of(0x16, 0x17, 0x1C, 0x1D));
        IntStream.rangeClosed(0x20, 0x2B).forEach(expected::add);                  // UC
        IntStream.rangeClosed(0x40, 0x55).forEach(expected::add);                  // RD incl. RESYNC
        expected.addAll(List.of(0x5C, 0x5D));
        expected.addAll(List.of(0x64, 0x65));                                      // UD
        expected.add(0x81);                                                        // CNP
        IntStream.rangeClosed(0xA0, 0xB4).forEach(expected::add);                  // XRC
        expected.addAll(List.of(0xB6, 0xB7, 0xBC, 0xBD));
        assertThat(defined).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void findMapsTransportAndOperationToTheOpcodeOrEmpty() {
        assertThat(Opcode.find(Transport.UC, Operation.SEND_FIRST)).contains(Opcode.UC_SEND_FIRST);
        assertThat(Opcode.find(Transport.UD, Operation.SEND_ONLY_WITH_IMMEDIATE)).contains(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE);
        assertThat(Opcode.find(Transport.UD, Operation.RDMA_WRITE_ONLY)).isEmpty();
        assertThat(Opcode.find(Transport.UC, Operation.RDMA_READ_REQUEST)).isEmpty();
        assertThat(Opcode.find(Transport.RC, Operation.RESYNC)).isEmpty();
        assertThat(Opcode.find(Transport.CNP, Operation.CONGESTION_NOTIFICATION_PACKET)).contains(Opcode.CNP);
        assertThat(Opcode.find(Transport.CNP, Operation.SEND_MIDDLE)).isEmpty();
        for (Opcode opcode : Opcode.values()) {
            assertThat(Opcode.find(opcode.transport(), opcode.operation())).contains(opcode);
        }
    }

    @Test
    void reservedCodesAreUnknownNotExceptions() {
        assertThat(Opcode.fromCode(0x15)).isEmpty();
        assertThat(Opcode.fromCode(0x1E)).isEmpty();
        assertThat(Opcode.fromCode(0x80)).isEmpty();
        assertThat(Opcode.fromCode(0xFF)).isEmpty();
        assertThat(Opcode.lookup(-1)).isNull();
        assertThat(Opcode.lookup(256)).isNull();
    }

    @Test
    void headerOrderAndOffsetsFollowIbtaAndRxe() {
        assertHeaders(Opcode.RC_SEND_ONLY, List.of(BTH), 12);
        assertHeaders(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, List.of(BTH, RETH, IMM_DT), 32);
        assertThat(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.offsetOf(IMM_DT)).isEqualTo(28);
        assertHeaders(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, List.of(BTH), 12);
        assertHeaders(Opcode.RC_ATOMIC_ACKNOWLEDGE, List.of(BTH, AETH, ATOMIC_ACK_ETH), 24);
        assertHeaders(Opcode.RC_FETCH_ADD, List.of(BTH, ATOMIC_ETH), 40);
        assertHeaders(Opcode.RC_FLUSH, List.of(BTH, FETH, RETH), 32);             // rxe: FETH then RETH
        assertHeaders(Opcode.RC_ATOMIC_WRITE, List.of(BTH, RETH), 28);
        assertHeaders(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, List.of(BTH, IETH), 16);
        assertHeaders(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, List.of(BTH, DETH, IMM_DT), 24);
        assertHeaders(Opcode.RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE, List.of(BTH, RDETH, DETH, RETH, IMM_DT), 44);
        assertHeaders(Opcode.RD_ACKNOWLEDGE, List.of(BTH, RDETH, AETH), 20);
        assertHeaders(Opcode.RD_RESYNC, List.of(BTH, RDETH, DETH), 24);
        assertHeaders(Opcode.XRC_SEND_FIRST, List.of(BTH, XRCETH), 16);
        assertHeaders(Opcode.XRC_RDMA_READ_RESPONSE_FIRST, List.of(BTH, AETH), 16);
        assertHeaders(Opcode.CNP, List.of(BTH, CNP_RESERVED), 28);
    }

    private static void assertHeaders(Opcode opcode, List<HeaderType> headers, int length) {
        assertThat(opcode.headers()).as("%s headers", opcode).containsExactlyElementsOf(headers);
        assertThat(opcode.headersLength()).as("%s length", opcode).isEqualTo(length);
        int offset = 0;
        for (HeaderType header : headers) {
            assertThat(opcode.offsetOf(header)).isEqualTo(offset);
            offset += header.length();
        }
        for (HeaderType absent : EnumSet.complementOf(EnumSet.copyOf(headers))) {
            assertThat(opcode.offsetOf(absent)).isEqualTo(-1);
        }
    }

    @Test
    void atPositionGivesThePacketsOfTheSameMessage() {
        assertThat(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE.at(Position.FIRST)).isEqualTo(Opcode.RC_SEND_FIRST);
        assertThat(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE.at(Position.MIDDLE)).isEqualTo(Opcode.RC_SEND_MIDDLE);
        assertThat(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE.at(Position.LAST)).isEqualTo(Opcode.RC_SEND_LAST_WITH_IMMEDIATE);
        assertThat(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE.at(Position.ONLY)).isEqualTo(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE);
        assertThat(Opcode.UC_SEND_ONLY.at(Position.LAST)).isEqualTo(Opcode.UC_SEND_LAST);
        assertThat(Opcode.RC_SEND_ONLY_WITH_INVALIDATE.at(Position.LAST)).isEqualTo(Opcode.RC_SEND_LAST_WITH_INVALIDATE);
        assertThat(Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.at(Position.FIRST)).isEqualTo(Opcode.UC_RDMA_WRITE_FIRST);
        assertThat(Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.at(Position.LAST))
                .isEqualTo(Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE);
        assertThat(Opcode.RC_RDMA_WRITE_FIRST.at(Position.LAST)).isEqualTo(Opcode.RC_RDMA_WRITE_LAST);
        assertThat(Opcode.RC_RDMA_READ_RESPONSE_ONLY.at(Position.MIDDLE)).isEqualTo(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE);
        assertThat(Opcode.RC_FETCH_ADD.at(Position.ONLY)).isEqualTo(Opcode.RC_FETCH_ADD);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> Opcode.RC_COMPARE_SWAP.at(Position.FIRST));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> Opcode.UD_SEND_ONLY.at(Position.MIDDLE));
        for (Opcode opcode : Opcode.values()) {
            assertThat(opcode.at(opcode.position())).as("%s at its own position", opcode).isEqualTo(opcode);
        }
    }

    @Test
    void ofIsFindForLegalPairsAndRefusesIllegalOnes() {
        for (Opcode opcode : Opcode.values()) {
            assertThat(Opcode.of(opcode.transport(), opcode.operation())).isSameAs(opcode);
        }
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> Opcode.of(Transport.UD, Operation.RDMA_WRITE_ONLY));
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> Opcode.of(Transport.CNP, Operation.SEND_MIDDLE));
    }

    @Test
    void positionOfPacketIndexAndPacketCountFollowIbta94() {
        assertThat(Position.of(0, 1)).isEqualTo(Position.ONLY);
        assertThat(Position.of(0, 3)).isEqualTo(Position.FIRST);
        assertThat(Position.of(1, 3)).isEqualTo(Position.MIDDLE);
        assertThat(Position.of(2, 3)).isEqualTo(Position.LAST);
        assertThat(Position.of(1, 2)).isEqualTo(Position.LAST);
        assertThat(Position.packetCount(0, 1024)).isEqualTo(1);
        assertThat(Position.packetCount(1, 1024)).isEqualTo(1);
        assertThat(Position.packetCount(1024, 1024)).isEqualTo(1);
        assertThat(Position.packetCount(1025, 1024)).isEqualTo(2);
        assertThat(Position.packetCount(1L << 31, 4096)).isEqualTo(1 << 19);
    }

    @Test
    void directionAndPayloadMeaningBits() {
        assertThat(Opcode.RC_RDMA_READ_REQUEST.isRequest()).isTrue();
        assertThat(Opcode.RC_RDMA_READ_REQUEST.carriesPayload()).isFalse();
        assertThat(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE.isResponse()).isTrue();
        assertThat(Opcode.RC_ACKNOWLEDGE.carriesPayload()).isFalse();
        assertThat(Opcode.CNP.direction()).isEqualTo(Direction.NOTIFICATION);
        assertThat(Opcode.RC_SEND_LAST_WITH_INVALIDATE.hasInvalidate()).isTrue();
        assertThat(Opcode.UC_SEND_LAST_WITH_IMMEDIATE.hasImmediate()).isTrue();
        assertThat(Opcode.RC_RDMA_WRITE_MIDDLE.position()).isEqualTo(Position.MIDDLE);
        assertThat(Opcode.RC_ATOMIC_WRITE.carriesPayload()).isTrue();
    }

    @Test
    void displayNamesAreWiresharkInfoColumnNames() {
        assertThat(Opcode.RC_SEND_ONLY.displayName()).isEqualTo("RC Send Only");
        assertThat(Opcode.RC_RDMA_READ_RESPONSE_FIRST.displayName()).isEqualTo("RC RDMA Read Response First");
        assertThat(Opcode.RC_COMPARE_SWAP.displayName()).isEqualTo("RC Compare Swap");
        assertThat(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE.displayName()).isEqualTo("UD Send Only Immediate");
        assertThat(Opcode.CNP.displayName()).isEqualTo("CNP");
    }
}
