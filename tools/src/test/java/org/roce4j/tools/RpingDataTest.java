package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * rping's buffers against what Linux's rping sent in reference-pcaps/rxe_rping_cm.pcap
 * ({@code rping -s -a 192.168.77.2 -C 5 -S 100 -v} and its client): the client's SENDs are
 * {@code struct rping_rdma_info} in network order, the server READs and WRITEs exactly what they
 * announce, its own SENDs are 16 zero bytes, and the ping data is rping's text byte for byte.
 */
class RpingDataTest {
    /** One RoCE packet of the rping part of the capture. */
    record Packet(Opcode opcode, byte[] payload, long rethVa, int rethRkey, int rethLength) {
    }

    private static List<Packet> rping;

    @BeforeAll
    static void capture() throws IOException {
        Path file = TestCaptures.repoRoot().resolveSibling("shared").resolve("reference-pcaps").resolve("rxe_rping_cm.pcap");
        RequiredInCi.require(Files.isRegularFile(file), "the reference capture " + file + " (../shared)");
        rping = new ArrayList<>();
        PacketInfo p = new PacketInfo();
        for (PcapRecord record : TestCaptures.read(file)) {
            byte[] frame = record.data();
            if (!p.parseFrame(frame, 0, frame.length) || p.destQp() == 1) {
                continue; // CM MADs and anything else
            }
            if (p.opcode() == Opcode.RC_ACKNOWLEDGE) {
                continue;
            }
            boolean reth = p.opcode() == Opcode.RC_RDMA_READ_REQUEST || p.opcode() == Opcode.RC_RDMA_WRITE_ONLY;
            rping.add(new Packet(p.opcode(), Arrays.copyOfRange(frame, p.payloadOffset(), p.payloadOffset() + p.payloadLength()),
                    reth ? p.rethVirtualAddress() : 0, reth ? p.rethRkey() : 0, reth ? p.rethDmaLength() : 0));
            if (rping.size() == 5 * 7) {
                break; // -C 5: seven packets a ping; ib_write_bw -R follows
            }
        }
    }

    @Test
    @DisplayName("rping.c's ping loop on the wire: SEND start info, READ, SEND go-ahead, SEND rdma info, WRITE, SEND go-ahead — five times")
    void sequence() {
        List<Opcode> one = List.of(Opcode.RC_SEND_ONLY, Opcode.RC_RDMA_READ_REQUEST, Opcode.RC_RDMA_READ_RESPONSE_ONLY,
                Opcode.RC_SEND_ONLY, Opcode.RC_SEND_ONLY, Opcode.RC_RDMA_WRITE_ONLY, Opcode.RC_SEND_ONLY);
        List<Opcode> seen = rping.stream().map(Packet::opcode).toList();
        for (int ping = 0; ping < 5; ping++) {
            assertThat(seen.subList(ping * 7, ping * 7 + 7)).as("ping " + ping).containsExactlyElementsOf(one);
        }
    }

    @Test
    @DisplayName("struct rping_rdma_info: buf be64, rkey be32, size be32 — decoding and encoding rxe's client SENDs gives the same 16 bytes; "
            + "the server READs and WRITEs what they announce")
    void rdmaInfoIsWhatTheServerUses() {
        for (int ping = 0; ping < 5; ping++) {
            List<Packet> p = rping.subList(ping * 7, ping * 7 + 7);
            List<Packet> clientSends = p.stream().filter(x -> x.opcode() == Opcode.RC_SEND_ONLY && !allZero(x.payload())).toList();
            assertThat(clientSends).hasSize(2);
            RpingData.Info start = RpingData.Info.readFrom(MemorySegment.ofArray(clientSends.get(0).payload()));
            RpingData.Info sink = RpingData.Info.readFrom(MemorySegment.ofArray(clientSends.get(1).payload()));
            assertThat(start.size()).isEqualTo(100);
            assertThat(encode(start)).isEqualTo(clientSends.get(0).payload());
            Packet read = p.stream().filter(x -> x.opcode() == Opcode.RC_RDMA_READ_REQUEST).findFirst().orElseThrow();
            Packet write = p.stream().filter(x -> x.opcode() == Opcode.RC_RDMA_WRITE_ONLY).findFirst().orElseThrow();
            assertThat(new long[] {read.rethVa(), read.rethRkey(), read.rethLength()})
                    .containsExactly(start.buf(), start.rkey(), start.size());
            assertThat(new long[] {write.rethVa(), write.rethRkey()}).containsExactly(sink.buf(), sink.rkey());
            // strlen(rdma_buf) + 1: the whole buffer, its last byte the NUL
            assertThat(write.rethLength()).isEqualTo(100);
        }
    }

    @Test
    @DisplayName("the server's go-ahead SENDs carry its never-formatted send_buf: 16 zero bytes")
    void serverSendsAreZero() {
        long zeros = rping.stream().filter(x -> x.opcode() == Opcode.RC_SEND_ONLY && allZero(x.payload())).count();
        assertThat(zeros).isEqualTo(10);
        assertThat(rping.stream().filter(x -> x.opcode() == Opcode.RC_SEND_ONLY)).allMatch(x -> x.payload().length == 16);
    }

    @Test
    @DisplayName("the ping data: \"rdma-ping-%d: \" then characters from 'A'+ping upward, wrapping after 'z', NUL last — "
            + "what rxe's READ responses and WRITEs carried, byte for byte")
    void pingData() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(100);
            int start = RpingData.firstStart();
            for (int ping = 0; ping < 5; ping++) {
                RpingData.fill(buffer, 100, ping, start);
                start = RpingData.nextStart(start);
                byte[] expected = buffer.toArray(ValueLayout.JAVA_BYTE);
                List<Packet> p = rping.subList(ping * 7, ping * 7 + 7);
                byte[] read = p.stream().filter(x -> x.opcode() == Opcode.RC_RDMA_READ_RESPONSE_ONLY).findFirst().orElseThrow().payload();
                byte[] write = p.stream().filter(x -> x.opcode() == Opcode.RC_RDMA_WRITE_ONLY).findFirst().orElseThrow().payload();
                assertThat(read).as("ping %d", ping).isEqualTo(expected);
                assertThat(write).as("ping %d", ping).isEqualTo(expected);
            }
            RpingData.fill(buffer, 100, 0, RpingData.firstStart());
            assertThat(RpingData.cString(buffer)).startsWith("rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyzABC")
                    .hasSize(99);
        }
    }

    @Test
    @DisplayName("the start character goes 'A'..'z' and back to 'A'; RPING_MIN_BUFSIZE is 26, as rping's -S check prints it")
    void limits() {
        assertThat(RpingData.nextStart('y')).isEqualTo('z');
        assertThat(RpingData.nextStart('z')).isEqualTo('A');
        assertThat(RpingData.MIN_BUFSIZE).isEqualTo(26);
    }

    private static byte[] encode(RpingData.Info info) {
        byte[] bytes = new byte[RpingData.INFO_BYTES];
        info.writeTo(MemorySegment.ofArray(bytes));
        return bytes;
    }

    private static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
