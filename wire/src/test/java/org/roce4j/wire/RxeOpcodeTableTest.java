package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Our opcode table against Linux rxe's, row by row. The rows below are the facts of
 * {@code drivers/infiniband/sw/rxe/rxe_opcode.c}, array {@code rxe_opcode[]} (torvalds/linux at
 * 2555693dd85c7a726eed570736bf6e1c4c7116ed): for each opcode rxe defines, its {@code .length}
 * (BTH plus extension headers, bytes), its header masks in the order of its {@code .offset}
 * entries, and its meaning bits — RXE_PAYLOAD, REQ, ACK, RWR (takes the receive WQE), COMP
 * (generates the receive completion), SEND, WRITE, READ, ATOMIC, START, MIDDLE, END. That version
 * has no FLUSH / ATOMIC WRITE rows: those two are the rows the rxe patches adding
 * {@code IB_OPCODE_RC_FLUSH} and {@code IB_OPCODE_RC_ATOMIC_WRITE} put in the same array (RC only,
 * with RXE_FLUSH_MASK / RXE_ATOMIC_WRITE_MASK). rxe has no RD RESYNC, no RD/XRC FLUSH or ATOMIC
 * WRITE, no XRC and no CNP; those are checked against IBTA in {@link OpcodeTableTest}.
 */
class RxeOpcodeTableTest {
    private static final Map<Opcode, String> RXE = new LinkedHashMap<>();

    private static void row(Opcode opcode, int length, String masks) {
        RXE.put(opcode, length + " " + masks);
    }

    static {
        // RC
        row(Opcode.RC_SEND_FIRST, 12, "PAYLOAD REQ RWR SEND START");
        row(Opcode.RC_SEND_MIDDLE, 12, "PAYLOAD REQ SEND MIDDLE");
        row(Opcode.RC_SEND_LAST, 12, "PAYLOAD REQ COMP SEND END");
        row(Opcode.RC_SEND_LAST_WITH_IMMEDIATE, 16, "IMMDT PAYLOAD REQ COMP SEND END");
        row(Opcode.RC_SEND_ONLY, 12, "PAYLOAD REQ COMP RWR SEND START END");
        row(Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, 16, "IMMDT PAYLOAD REQ COMP RWR SEND START END");
        row(Opcode.RC_RDMA_WRITE_FIRST, 28, "RETH PAYLOAD REQ WRITE START");
        row(Opcode.RC_RDMA_WRITE_MIDDLE, 12, "PAYLOAD REQ WRITE MIDDLE");
        row(Opcode.RC_RDMA_WRITE_LAST, 12, "PAYLOAD REQ WRITE END");
        row(Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 16, "IMMDT PAYLOAD REQ WRITE COMP RWR END");
        row(Opcode.RC_RDMA_WRITE_ONLY, 28, "RETH PAYLOAD REQ WRITE START END");
        row(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 32, "RETH IMMDT PAYLOAD REQ WRITE COMP RWR START END");
        row(Opcode.RC_RDMA_READ_REQUEST, 28, "RETH REQ READ START END");
        row(Opcode.RC_RDMA_READ_RESPONSE_FIRST, 16, "AETH PAYLOAD ACK START");
        row(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 12, "PAYLOAD ACK MIDDLE");
        row(Opcode.RC_RDMA_READ_RESPONSE_LAST, 16, "AETH PAYLOAD ACK END");
        row(Opcode.RC_RDMA_READ_RESPONSE_ONLY, 16, "AETH PAYLOAD ACK START END");
        row(Opcode.RC_ACKNOWLEDGE, 16, "AETH ACK START END");
        row(Opcode.RC_ATOMIC_ACKNOWLEDGE, 24, "AETH ATMACK ACK START END");
        row(Opcode.RC_COMPARE_SWAP, 40, "ATMETH REQ ATOMIC START END");
        row(Opcode.RC_FETCH_ADD, 40, "ATMETH REQ ATOMIC START END");
        row(Opcode.RC_SEND_LAST_WITH_INVALIDATE, 16, "IETH PAYLOAD REQ COMP SEND END");
        row(Opcode.RC_SEND_ONLY_WITH_INVALIDATE, 16, "IETH PAYLOAD REQ COMP RWR SEND END START");
        row(Opcode.RC_FLUSH, 32, "FETH RETH FLUSH START END REQ");
        row(Opcode.RC_ATOMIC_WRITE, 28, "RETH PAYLOAD REQ ATOMIC_WRITE START END");
        // UC
        row(Opcode.UC_SEND_FIRST, 12, "PAYLOAD REQ RWR SEND START");
        row(Opcode.UC_SEND_MIDDLE, 12, "PAYLOAD REQ SEND MIDDLE");
        row(Opcode.UC_SEND_LAST, 12, "PAYLOAD REQ COMP SEND END");
        row(Opcode.UC_SEND_LAST_WITH_IMMEDIATE, 16, "IMMDT PAYLOAD REQ COMP SEND END");
        row(Opcode.UC_SEND_ONLY, 12, "PAYLOAD REQ COMP RWR SEND START END");
        row(Opcode.UC_SEND_ONLY_WITH_IMMEDIATE, 16, "IMMDT PAYLOAD REQ COMP RWR SEND START END");
        row(Opcode.UC_RDMA_WRITE_FIRST, 28, "RETH PAYLOAD REQ WRITE START");
        row(Opcode.UC_RDMA_WRITE_MIDDLE, 12, "PAYLOAD REQ WRITE MIDDLE");
        row(Opcode.UC_RDMA_WRITE_LAST, 12, "PAYLOAD REQ WRITE END");
        row(Opcode.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 16, "IMMDT PAYLOAD REQ WRITE COMP RWR END");
        row(Opcode.UC_RDMA_WRITE_ONLY, 28, "RETH PAYLOAD REQ WRITE START END");
        row(Opcode.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 32, "RETH IMMDT PAYLOAD REQ WRITE COMP RWR START END");
        // RD
        row(Opcode.RD_SEND_FIRST, 24, "RDETH DETH PAYLOAD REQ RWR SEND START");
        row(Opcode.RD_SEND_MIDDLE, 24, "RDETH DETH PAYLOAD REQ SEND MIDDLE");
        row(Opcode.RD_SEND_LAST, 24, "RDETH DETH PAYLOAD REQ COMP SEND END");
        row(Opcode.RD_SEND_LAST_WITH_IMMEDIATE, 28, "RDETH DETH IMMDT PAYLOAD REQ COMP SEND END");
        row(Opcode.RD_SEND_ONLY, 24, "RDETH DETH PAYLOAD REQ COMP RWR SEND START END");
        row(Opcode.RD_SEND_ONLY_WITH_IMMEDIATE, 28, "RDETH DETH IMMDT PAYLOAD REQ COMP RWR SEND START END");
        row(Opcode.RD_RDMA_WRITE_FIRST, 40, "RDETH DETH RETH PAYLOAD REQ WRITE START");
        row(Opcode.RD_RDMA_WRITE_MIDDLE, 24, "RDETH DETH PAYLOAD REQ WRITE MIDDLE");
        row(Opcode.RD_RDMA_WRITE_LAST, 24, "RDETH DETH PAYLOAD REQ WRITE END");
        row(Opcode.RD_RDMA_WRITE_LAST_WITH_IMMEDIATE, 28, "RDETH DETH IMMDT PAYLOAD REQ WRITE COMP RWR END");
        row(Opcode.RD_RDMA_WRITE_ONLY, 40, "RDETH DETH RETH PAYLOAD REQ WRITE START END");
        row(Opcode.RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 44,
                "RDETH DETH RETH IMMDT PAYLOAD REQ WRITE COMP RWR START END");
        row(Opcode.RD_RDMA_READ_REQUEST, 40, "RDETH DETH RETH REQ READ START END");
        row(Opcode.RD_RDMA_READ_RESPONSE_FIRST, 20, "RDETH AETH PAYLOAD ACK START");
        row(Opcode.RD_RDMA_READ_RESPONSE_MIDDLE, 16, "RDETH PAYLOAD ACK MIDDLE");
        row(Opcode.RD_RDMA_READ_RESPONSE_LAST, 20, "RDETH AETH PAYLOAD ACK END");
        row(Opcode.RD_RDMA_READ_RESPONSE_ONLY, 20, "RDETH AETH PAYLOAD ACK START END");
        row(Opcode.RD_ACKNOWLEDGE, 20, "RDETH AETH ACK START END");
        row(Opcode.RD_ATOMIC_ACKNOWLEDGE, 28, "RDETH AETH ATMACK ACK START END");
        row(Opcode.RD_COMPARE_SWAP, 52, "RDETH DETH ATMETH REQ ATOMIC START END");
        row(Opcode.RD_FETCH_ADD, 52, "RDETH DETH ATMETH REQ ATOMIC START END");
        // UD
        row(Opcode.UD_SEND_ONLY, 20, "DETH PAYLOAD REQ COMP RWR SEND START END");
        row(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, 24, "DETH IMMDT PAYLOAD REQ COMP RWR SEND START END");
    }

    /** rxe's header mask names, in the order its offsets place the headers. */
    private static final Map<String, HeaderType> HEADER_MASKS = Map.of(
            "RDETH", HeaderType.RDETH, "DETH", HeaderType.DETH, "RETH", HeaderType.RETH,
            "AETH", HeaderType.AETH, "ATMETH", HeaderType.ATOMIC_ETH, "ATMACK", HeaderType.ATOMIC_ACK_ETH,
            "IMMDT", HeaderType.IMM_DT, "IETH", HeaderType.IETH, "FETH", HeaderType.FETH);

    @Test
    void everyRowOfRxeOpcodeTableHasOurLengthHeadersInOrderAndMeaningBits() {
        for (Map.Entry<Opcode, String> entry : RXE.entrySet()) {
            Opcode opcode = entry.getKey();
            List<String> words = Arrays.asList(entry.getValue().split(" "));
            int length = Integer.parseInt(words.get(0));
            List<HeaderType> headers = new ArrayList<>(List.of(HeaderType.BTH));
            Set<String> meaning = new java.util.TreeSet<>();
            for (String word : words.subList(1, words.size())) {
                HeaderType header = HEADER_MASKS.get(word);
                if (header != null) {
                    headers.add(header);
                } else {
                    meaning.add(word);
                }
            }
            assertThat(opcode.headersLength()).as("%s .length", opcode).isEqualTo(length);
            assertThat(opcode.headers()).as("%s headers in .offset order", opcode).containsExactlyElementsOf(headers);
            assertThat(meaningBitsOf(opcode)).as("%s mask", opcode).isEqualTo(meaning);
        }
    }

    @Test
    void rxeDefinesNoOpcodeOfRcUcRdUdThatWeLack() {
        Set<Opcode> ours = EnumSet.noneOf(Opcode.class);
        for (Opcode opcode : Opcode.values()) {
            boolean rxeTransport = opcode.transport() != Transport.XRC && opcode.transport() != Transport.CNP;
            boolean rxeLacks = opcode.kind() == OperationKind.RESYNC || opcode.transport() != Transport.RC
                    && (opcode.kind() == OperationKind.FLUSH || opcode.kind() == OperationKind.ATOMIC_WRITE);
            if (rxeTransport && !rxeLacks) {
                ours.add(opcode);
            }
        }
        assertThat(RXE.keySet()).containsExactlyInAnyOrderElementsOf(ours);
    }

    /** Our table's answers, spelled with rxe's mask names. */
    private static Set<String> meaningBitsOf(Opcode opcode) {
        Set<String> bits = new java.util.TreeSet<>();
        if (opcode.carriesPayload()) {
            bits.add("PAYLOAD");
        }
        if (opcode.isRequest()) {
            bits.add("REQ");
        }
        if (opcode.isResponse()) {
            bits.add("ACK");
        }
        if (opcode.takesReceiveWqe()) {
            bits.add("RWR");
        }
        if (opcode.completesReceiveWqe()) {
            bits.add("COMP");
        }
        switch (opcode.kind()) {
            case SEND -> bits.add("SEND");
            case RDMA_WRITE -> bits.add("WRITE");
            case RDMA_READ_REQUEST -> bits.add("READ");
            case ATOMIC -> bits.add("ATOMIC");
            case FLUSH -> bits.add("FLUSH");
            case ATOMIC_WRITE -> bits.add("ATOMIC_WRITE");
            default -> { }
        }
        switch (opcode.position()) {
            case FIRST -> bits.add("START");
            case MIDDLE -> bits.add("MIDDLE");
            case LAST -> bits.add("END");
            case ONLY -> bits.addAll(List.of("START", "END"));
        }
        return bits;
    }
}
