package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.roce4j.emulator.TestMemory.assertSameBytes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

@DisplayName("two nodes, RC: SEND, WRITE, READ and atomics move the right bytes")
class EndToEndSmokeTest {
    private final TwoNodes nodes = new TwoNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    private static void fill(MemorySegment segment, long offset, int length, long seed) {
        Random random = new Random(seed);
        for (int i = 0; i < length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, offset + i, (byte) random.nextInt());
        }
    }


    @Test
    void rcSendWriteReadAtomics() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        Qp qa = pair[0];
        Qp qb = pair[1];
        var a = nodes.a;
        var b = nodes.b;

        // SEND of 5000 bytes: five packets at MTU 1024, into a receive buffer at offset 64 KiB.
        fill(a.memory, 0, 5000, 1);
        qb.postRecv(RecvWr.of(7, b.mr, 65536, 8192));
        qa.postSend(SendWr.send(1, a.mr, 0, 5000));
        List<WorkCompletion> sendSide = a.pollAll();
        List<WorkCompletion> recvSide = b.pollAll();
        assertThat(sendSide).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.SEND);
            assertThat(wc.wrId()).isEqualTo(1);
        });
        assertThat(recvSide).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RECV);
            assertThat(wc.byteLen()).isEqualTo(5000);
            assertThat(wc.wrId()).isEqualTo(7);
        });
        assertSameBytes(a.memory, 0, b.memory, 65536, 5000);

        // RDMA WRITE of 10000 bytes.
        fill(a.memory, 10000, 10000, 2);
        qa.postSend(SendWr.rdmaWrite(2, a.mr, 10000, 10000, b.mr.address() + 200000, b.mr.rkey()));
        assertThat(a.pollAll()).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
        });
        assertSameBytes(a.memory, 10000, b.memory, 200000, 10000);

        // RDMA READ of 7777 bytes.
        fill(b.memory, 300000, 7777, 3);
        qa.postSend(SendWr.rdmaRead(3, a.mr, 400000, 7777, b.mr.address() + 300000, b.mr.rkey()));
        assertThat(a.pollAll()).singleElement().satisfies(wc -> {
            assertThat(wc.status()).isEqualTo(WcStatus.SUCCESS);
            assertThat(wc.opcode()).isEqualTo(WcOpcode.RDMA_READ);
            assertThat(wc.byteLen()).isEqualTo(7777);
        });
        assertSameBytes(b.memory, 300000, a.memory, 400000, 7777);

        // FETCH_AND_ADD then CMP_AND_SWP on a 64-bit value in host byte order.
        b.memory.set(ValueLayout.JAVA_LONG, 500000, 40);
        qa.postSend(SendWr.fetchAndAdd(4, a.mr, 600000, b.mr.address() + 500000, b.mr.rkey(), 2));
        qa.postSend(SendWr.compareAndSwap(5, a.mr, 600008, b.mr.address() + 500000, b.mr.rkey(), 42, 1000));
        List<WorkCompletion> atomics = a.pollAll();
        assertThat(atomics).extracting(WorkCompletion::status).containsExactly(WcStatus.SUCCESS, WcStatus.SUCCESS);
        assertThat(atomics).extracting(WorkCompletion::opcode).containsExactly(WcOpcode.FETCH_ADD, WcOpcode.COMP_SWAP);
        assertThat(a.memory.get(ValueLayout.JAVA_LONG, 600000)).isEqualTo(40);
        assertThat(a.memory.get(ValueLayout.JAVA_LONG, 600008)).isEqualTo(42);
        assertThat(b.memory.get(ValueLayout.JAVA_LONG, 500000)).isEqualTo(1000);
        assertThat(nodes.rnicA.dropped(org.roce4j.wire.DropReason.BAD_ICRC)).isZero();
        assertThat(nodes.rnicB.counter(RnicCounter.DROPPED_MALFORMED)).isZero();
    }
}
