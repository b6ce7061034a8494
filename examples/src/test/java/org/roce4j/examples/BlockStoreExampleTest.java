package org.roce4j.examples;

import static org.roce4j.testkit.RoceAssertions.assertThat;
import static org.roce4j.testkit.RoceAssertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.function.BiConsumer;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.fabric.FaultCounters;
import org.roce4j.testkit.EmulatedFabric;
import org.roce4j.testkit.TestFabric;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WrOpcode;

class BlockStoreExampleTest {
    private static final int MAX_IO = BlockStoreExample.MAX_IO_BYTES;

    /*
     * The contexts are opened on the fabric's devices directly, not taken from the testkit: its resource
     * tracker hands out proxies and unwraps a call's direct arguments only, so the region inside a BIND_MW's
     * MwBindInfo would reach the emulator as a proxy, which it refuses (EINVAL "a BIND_MW needs a memory
     * region of the QP's context"). These contexts are closed here and not counted by the leak check.
     */
    private static Context open(TestFabric fabric, int node) {
        return fabric.node(node).rnic().device().open();
    }

    /** What a run did, and the faults the fabric injected into it. */
    private record Outcome(BlockStoreExample.Summary summary, FaultCounters faults) {
    }

    /** Runs the example; its last step, the stale access, without faults (see BlockStoreExample.run). */
    private static Outcome run(TestFabric fabric, int ios, ByteArrayOutputStream out) {
        FaultCounters[] injected = new FaultCounters[1];
        try (Context server = open(fabric, 0); Context client = open(fabric, 1)) {
            BlockStoreExample.Summary summary = BlockStoreExample.run(server, client, ios,
                    new PrintStream(out, true, StandardCharsets.UTF_8), () -> {
                        injected[0] = fabric.fabric().faultCounters(); // a new plan counts from zero
                        fabric.faults(fabric.seededFaults());
                    });
            return new Outcome(summary, injected[0]);
        }
    }

    @Test
    @EmulatedFabric(drop = 0.1, duplicate = 0.05, reorder = 0.1, corrupt = 0.02, profile = DeviceProfile.RXE_6_12)
    @DisplayName("IBTA 10.6.7, 9.4.1: every I/O through its own type 2 window moves the right bytes both ways under loss, "
            + "duplication, reordering and corruption; every response invalidates its window (rxe: reported as IP_CSUM_OK)")
    void everyIoThroughItsOwnWindowMovesTheRightBytesUnderFaults(TestFabric fabric) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Outcome outcome = run(fabric, 240, out);
        BlockStoreExample.Summary summary = outcome.summary();

        assertThat(summary.writes()).isEqualTo(120);
        assertThat(summary.reads()).isEqualTo(120);
        // departure [23]: rxe reports the kernel's IB_WC_WITH_INVALIDATE as IBV_WC_IP_CSUM_OK
        assertThat(summary.reportedAsIpCsumOk()).isEqualTo(240);
        assertThat(summary.reportedWithInv()).isZero();
        assertThat(summary.staleAccess()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("120 read I/Os", "every byte as written",
                "240 reported it as IBV_WC_IP_CSUM_OK (rxe; 0 of them with invalidated_rkey 0)",
                "after the response: REM_ACCESS_ERR");
        assertThat(outcome.faults().dropped()).isPositive();
        assertThat(outcome.faults().duplicated()).isPositive();
        assertThat(outcome.faults().reordered()).isPositive();
    }

    @Test
    @EmulatedFabric(drop = 0.05, reorder = 0.1)
    @DisplayName("IBTA 9.4.1 / libibverbs: each response's receive reports IBV_WC_WITH_INV and the window's rkey")
    void eachResponseReportsWithInvAndTheWindowsRkey(TestFabric fabric) {
        BlockStoreExample.Summary summary = run(fabric, 40, new ByteArrayOutputStream()).summary();

        assertThat(summary.reportedWithInv()).isEqualTo(40);
        assertThat(summary.reportedAsIpCsumOk()).isZero();
        assertThat(summary.staleAccess()).isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    /** One connection whose client has posted one I/O, and the request as the server received it. */
    private static void withOneRequest(TestFabric fabric, boolean readIo, BiConsumer<Side, BlockRequest> body) {
        try (Context serverContext = open(fabric, 0); Context clientContext = open(fabric, 1);
             Endpoint serverSide = new Endpoint(serverContext, 32); Endpoint clientSide = new Endpoint(clientContext, 32)) {
            BlockStoreExample.Connection connection = BlockStoreExample.connect(serverSide, clientSide);
            BlockServer server = new BlockServer(serverSide, connection.server(), BlockStoreExample.BLOCKS,
                    BlockStoreExample.BLOCK_SIZE, MAX_IO, BlockStoreExample.DEPTH);
            server.store().copyFrom(MemorySegment.ofArray(BlockStoreExample.pattern(7, (int) server.store().byteSize())));
            try (BlockClient client = new BlockClient(clientSide, connection.client(), BlockStoreExample.BLOCK_SIZE, MAX_IO,
                    BlockStoreExample.DEPTH)) {
                assertThat(readIo ? client.read(0, MAX_IO) : client.write(0, new byte[MAX_IO])).isTrue();
                body.accept(new Side(serverSide, connection, server, client), server.awaitRequest());
            }
        }
    }

    private record Side(Endpoint serverSide, BlockStoreExample.Connection connection, BlockServer server, BlockClient client) {
    }

    @Test
    @EmulatedFabric
    @DisplayName("IBTA 10.6.7: a server writing past its window, inside the client's region, gets REM_ACCESS_ERR; "
            + "the next buffer is untouched and the client's QP is in ERR")
    void aServerWritingPastItsWindowGetsRemAccessErr(TestFabric fabric) {
        withOneRequest(fabric, true, (side, grant) -> {
            assertThat(grant.length()).isEqualTo(MAX_IO);
            assertThat(side.server().probe(grant, grant.length() - 8, 16, WrOpcode.RDMA_WRITE)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(side.client().buffers().asSlice(0, 2L * MAX_IO).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
            assertThat(side.connection().client()).isInState(QpState.ERR);
        });
    }

    @Test
    @EmulatedFabric(profile = DeviceProfile.RXE_6_12)
    @DisplayName("departure [22]: on rxe a write past the window but inside its region lands in the next buffer")
    void onRxeAWritePastTheWindowInsideItsRegionLands(TestFabric fabric) {
        withOneRequest(fabric, true, (side, grant) -> {
            assertThat(side.server().probe(grant, grant.length(), 16, WrOpcode.RDMA_WRITE)).isEqualTo(WcStatus.SUCCESS);
            assertThat(side.client().buffers().asSlice(MAX_IO, 16).toArray(ValueLayout.JAVA_BYTE))
                    .containsExactly(side.server().store().asSlice(0, 16).toArray(ValueLayout.JAVA_BYTE));
        });
    }

    @Test
    @EmulatedFabric(profile = DeviceProfile.RXE_6_12)
    @DisplayName("IBTA 10.6.7 / rxe_lookup_mw: a server reading through a read I/O's window (REMOTE_WRITE only) gets "
            + "REM_ACCESS_ERR, on rxe too")
    void aServerReadingThroughAReadIosWindowGetsRemAccessErr(TestFabric fabric) {
        withOneRequest(fabric, true, (side, grant) ->
                assertThat(side.server().probe(grant, 0, 64, WrOpcode.RDMA_READ)).isEqualTo(WcStatus.REM_ACCESS_ERR));
    }

    @Test
    @EmulatedFabric(profile = DeviceProfile.RXE_6_12)
    @DisplayName("IBTA 10.6.7 / rxe_lookup_mw: a server writing through a write I/O's window (REMOTE_READ only) gets "
            + "REM_ACCESS_ERR, on rxe too, and the buffer is untouched")
    void aServerWritingThroughAWriteIosWindowGetsRemAccessErr(TestFabric fabric) {
        withOneRequest(fabric, false, (side, grant) -> {
            assertThat(side.server().probe(grant, 0, 64, WrOpcode.RDMA_WRITE)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(side.client().buffers().asSlice(0, MAX_IO).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
        });
    }

    @Test
    @EmulatedFabric
    @DisplayName("IBTA 9.4.1, 10.6.7: after its SEND_WITH_INV response the server's grant is dead: an access with the "
            + "same rkey, inside the window and within its rights, gets REM_ACCESS_ERR")
    void aGrantUsedAfterItsResponseGetsRemAccessErr(TestFabric fabric) {
        withOneRequest(fabric, true, (side, grant) -> {
            side.server().execute(grant);
            BlockClient.Done done = awaitDone(side);
            assertThat(done.data()).containsExactly(side.server().store().asSlice(0, MAX_IO).toArray(ValueLayout.JAVA_BYTE));
            assertThat(side.client().reportedWithInv()).isEqualTo(1);
            assertThat(side.server().probe(grant, 0, 64, WrOpcode.RDMA_WRITE)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        });
    }

    @Test
    @EmulatedFabric
    @DisplayName("a response by plain SEND leaves the window open: the client refuses it")
    void aResponseThatDoesNotInvalidateIsRefused(TestFabric fabric) {
        withOneRequest(fabric, true, (side, grant) -> {
            Mr response = side.serverSide().register(BlockRequest.RESPONSE_BYTES, EnumSet.of(AccessFlag.LOCAL_WRITE));
            BlockRequest.encodeResponse(response.segment(), 0, grant.tag(), BlockRequest.STATUS_OK);
            side.connection().server().postSend(SendWr.send(77, response, 0, BlockRequest.RESPONSE_BYTES));
            assertThatThrownBy(() -> {
                while (side.client().poll().isEmpty()) {
                    Thread.onSpinWait(); // the client's own SEND completes first, then the response arrives
                }
            }).isInstanceOf(RdmaFailure.class)
                    .hasMessageContaining("did not invalidate its window (rkey 0x" + Integer.toHexString(grant.rkey()));
        });
    }

    private static BlockClient.Done awaitDone(Side side) {
        long deadline = System.nanoTime() + Polling.TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            side.server().serve();
            var done = side.client().poll();
            if (done.isPresent()) {
                return done.get();
            }
        }
        throw new AssertionError("no response");
    }
}
