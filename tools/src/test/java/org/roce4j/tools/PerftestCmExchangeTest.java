package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.testing.RequiredInCi;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mtu;
import org.roce4j.wire.pcap.PcapRecord;

/**
 * {@code ib_write_bw -R}'s exchange as {@code reference-pcaps/rxe_rping_cm.pcap} shows it: the
 * payloads of the RC SENDs on the out-of-band QP (0x12), the client's (192.168.77.3) against what
 * {@link PerftestHandshake} writes over an rdma_cm link when it plays the client's script, the
 * server's payloads fed back as the peer's parts.
 */
class PerftestCmExchangeTest {
    private static final int OUT_OF_BAND_QP = 0x12;
    private static final byte[] CLIENT_IP = {(byte) 192, (byte) 168, 77, 3};

    /** A message link: each write is kept, each read hands back the next of the peer's messages. */
    private static final class RecordedLink implements PerftestHandshake.Link {
        final List<byte[]> written = new ArrayList<>();
        final Deque<byte[]> peer;

        RecordedLink(List<byte[]> peer) {
            this.peer = new ArrayDeque<>(peer);
        }

        @Override
        public void write(byte[] part) {
            written.add(part.clone());
        }

        @Override
        public byte[] read(int length) throws PingpongFailure {
            byte[] next = peer.poll();
            if (next == null) {
                throw new PingpongFailure("the peer sent nothing more");
            }
            return Arrays.copyOf(next, length);
        }

        @Override
        public boolean rdmaCm() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    @Test
    @DisplayName("-R: the client's SENDs on the out-of-band QP are rxe_rping_cm.pcap's, byte for byte, and no \"done\" follows")
    void clientScriptMatchesCapturedSends() throws IOException, PingpongFailure {
        Path file = TestCaptures.repoRoot().resolveSibling("shared").resolve("reference-pcaps").resolve("rxe_rping_cm.pcap");
        RequiredInCi.require(Files.isRegularFile(file), "the reference capture " + file + " (../shared)");
        List<byte[]> client = new ArrayList<>();
        List<byte[]> server = new ArrayList<>();
        for (PcapRecord record : TestCaptures.read(file)) {
            byte[] payload = sendPayload(record.data());
            if (payload != null) {
                (Arrays.equals(record.data(), 26, 30, CLIENT_IP, 0, 4) ? client : server).add(payload);
            }
        }
        RecordedLink link = new RecordedLink(server);
        PerftestHandshake comm = new PerftestHandshake(link, true, 1);
        PerftestAddress mine = new PerftestAddress(0, 1, 0x13, 0x34a2a2, 0x71f, 0x5607a5daf000L,
                Gid.of(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 192, (byte) 168, 77, 3}), 0);
        ByteBuffer report = ByteBuffer.wrap(concat(client.subList(client.size() - 6, client.size() - 1)));

        // write_bw's client: versions, cycle buffer, cache line, MTU; create_rdma_cm_connection's two
        // syncs; the record, printed, then again; the report exchange; ctx_close_connection.
        comm.exchangeVersion(PerftestHandshake.VERSION);
        comm.exchangeMax(PerftestResources.CYCLE_BUFFER);
        comm.exchangeMax(Perftest.CACHE_LINE);
        Mtu mtu = comm.exchangeMtu(Mtu.MTU_1024);
        comm.syncBeforeSetUp();
        comm.syncBeforeSetUp();
        PerftestAddress remote = comm.handShake(mine);
        comm.handShake(mine);
        comm.handShake(mine);
        comm.handShake(mine);
        comm.exchangeBwReport(new PerftestHandshake.BwReport(report.getLong(), report.getLong(),
                report.getDouble(), report.getDouble(), report.getDouble()));
        comm.closeConnection(mine);

        assertThat(link.written).hasSameSizeAs(client);
        for (int i = 0; i < client.size(); i++) {
            assertThat(link.written.get(i)).as("SEND %d of the client", i).isEqualTo(withoutPadding(client.get(i)));
        }
        assertThat(link.peer).isEmpty();
        assertThat(mtu).isEqualTo(Mtu.MTU_1024);
        assertThat(remote.qpn()).isEqualTo(0x13);
        assertThat(remote.psn()).isEqualTo(0xf261e6);
    }

    /**
     * The payload of an RC SEND Only (opcode 0x04) to the out-of-band QP in an Ethernet/IPv4/UDP 4791
     * frame: after the 12-byte BTH, without the pad bytes the BTH counts and the 4-byte ICRC.
     */
    private static byte[] sendPayload(byte[] frame) {
        int bth = 14 + 20 + 8;
        if (frame.length < bth + 12 + 4 || (frame[12] & 0xFF) != 0x08 || frame[13] != 0 || frame[23] != 17
                || ((frame[36] & 0xFF) << 8 | frame[37] & 0xFF) != 4791) {
            return null;
        }
        int qp = (frame[bth + 5] & 0xFF) << 16 | (frame[bth + 6] & 0xFF) << 8 | frame[bth + 7] & 0xFF;
        if ((frame[bth] & 0xFF) != 0x04 || qp != OUT_OF_BAND_QP) {
            return null;
        }
        int pad = (frame[bth + 1] >> 4) & 0x3;
        return Arrays.copyOfRange(frame, bth + 12, frame.length - 4 - pad);
    }

    /**
     * A record's 4 bytes of struct padding (before vaddr) are whatever was on perftest's stack: 0 in
     * frames 96–104, {@code 07 56 00 00} in frame 382. roce4j sends 0; the comparison leaves them out.
     */
    private static byte[] withoutPadding(byte[] captured) {
        byte[] copy = captured.clone();
        if (copy.length == PerftestAddress.RDMA_CM_LENGTH) {
            Arrays.fill(copy, 20, 24, (byte) 0);
        }
        return copy;
    }

    private static byte[] concat(List<byte[]> parts) {
        ByteBuffer all = ByteBuffer.allocate(parts.stream().mapToInt(p -> p.length).sum());
        parts.forEach(all::put);
        return all.array();
    }
}
