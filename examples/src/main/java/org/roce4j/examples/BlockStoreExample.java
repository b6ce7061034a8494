package org.roce4j.examples;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Optional;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WrOpcode;

/**
 * A block store used the way storage protocols use memory windows (NVMe over Fabrics, iSER, SMB
 * Direct): for each I/O the client grants the server one type 2 window over exactly that I/O's buffer,
 * with exactly the right the transfer needs, and the server's response, a SEND_WITH_INV, takes the grant
 * back. IBTA 10.6.7 (memory windows: a window narrows a region to a range and rights of its own; a type 2
 * window is bound by a BIND_MW work request, serves only its QP, and is invalidated by LOCAL_INV or by the
 * peer's SEND with Invalidate) and IBTA 9.4.1 (SEND with Invalidate: the IETH carries the R_Key the
 * responder invalidates before it completes the receive). Run:
 * {@code examples/run BlockStoreExample [--server DEV] [--client DEV]}.
 *
 * <p>The client ({@link BlockClient}) writes blocks, reads them back and checks every byte; the server
 * ({@link BlockServer}) moves them with RDMA WRITE (read I/O) and RDMA READ (write I/O). Each response's
 * receive must report the invalidation. At the end the server tries its last grant once more and gets
 * IBV_WC_REM_ACCESS_ERR: the rkey died with the response.
 *
 * <p>What a window does not do on Linux rxe (departure [22] of the conformance lists): rxe holds an access
 * through a window to the bounds of the region behind it, not the window's, so there a server with the
 * rkey reaches the client's other buffers of the same region. The rights (REMOTE_WRITE vs REMOTE_READ),
 * the QP binding and the invalidation hold on rxe as on the default model.
 */
public final class BlockStoreExample {
    /** The store's blocks. */
    static final int BLOCKS = 64;
    /** The bytes of a block. */
    static final int BLOCK_SIZE = 512;
    /** The largest I/O, in bytes. */
    static final int MAX_IO_BYTES = 4 * BLOCK_SIZE;
    /** Requests outstanding at most (the client's slots). */
    static final int DEPTH = 4;

    /**
     * What a run did.
     *
     * @param writes             write I/Os
     * @param reads              read I/Os, each checked byte for byte
     * @param reportedWithInv    responses whose receive carried IBV_WC_WITH_INV and the rkey
     * @param reportedAsIpCsumOk responses whose receive carried IBV_WC_IP_CSUM_OK in its place (rxe)
     * @param staleAccess        the status of the server's access through its last, invalidated grant
     */
    public record Summary(int writes, int reads, long reportedWithInv, long reportedAsIpCsumOk, WcStatus staleAccess) {
    }

    /** The two QPs of a connection, connected. */
    record Connection(Qp server, Qp client) {
    }

    private BlockStoreExample() {
    }

    /**
     * Runs the example.
     *
     * @param args {@code [--server DEVICE] [--client DEVICE]}
     */
    public static void main(String[] args) {
        ExampleDevices devices = ExampleDevices.from(args);
        try (Context server = devices.server().open(); Context client = devices.client().open()) {
            run(server, client, 100, System.out);
        }
    }

    /**
     * Does {@code ios} I/Os, each through its own window: the first half writes, the rest reads, checked
     * against what was written; then checks the store byte for byte and shows that the last grant is dead.
     *
     * @param serverContext the server's device
     * @param clientContext the client's device
     * @param ios           how many I/Os
     * @param out           where to print
     * @return what happened
     * @throws RdmaFailure if an I/O fails, a byte is wrong, a response did not invalidate its window, or the
     *                     invalidated rkey still grants access
     */
    public static Summary run(Context serverContext, Context clientContext, int ios, PrintStream out) {
        return run(serverContext, clientContext, ios, out, () -> { });
    }

    /**
     * {@link #run(Context, Context, int, PrintStream)}, calling {@code beforeTheStaleAccess} before the last
     * step. A test under faults ends its faults there: the stale access ends the connection, and were the
     * NAK lost, its resends would meet a responder in ERR, which drops them, and with retry_cnt 7 (which rxe
     * retries forever) the access would never complete.
     */
    static Summary run(Context serverContext, Context clientContext, int ios, PrintStream out, Runnable beforeTheStaleAccess) {
        try (Endpoint serverSide = new Endpoint(serverContext, 4 * DEPTH + 4);
             Endpoint clientSide = new Endpoint(clientContext, 4 * DEPTH + 4)) {
            Connection connection = connect(serverSide, clientSide);
            BlockServer server = new BlockServer(serverSide, connection.server(), BLOCKS, BLOCK_SIZE, MAX_IO_BYTES, DEPTH);
            try (BlockClient client = new BlockClient(clientSide, connection.client(), BLOCK_SIZE, MAX_IO_BYTES, DEPTH)) {
                byte[] expected = new byte[BLOCKS * BLOCK_SIZE];
                Progress progress = new Progress(server, client, expected);
                int writes = ios / 2;
                for (int i = 0; i < writes; i++) {
                    long lba = lba(i, 5);
                    byte[] data = pattern(i, blocks(i) * BLOCK_SIZE);
                    while (!client.write(lba, data)) {
                        progress.step();
                    }
                    System.arraycopy(data, 0, expected, (int) lba * BLOCK_SIZE, data.length);
                }
                progress.drain();
                if (server.store().mismatch(MemorySegment.ofArray(expected)) != -1) {
                    throw new RdmaFailure("the store differs from what was written at byte "
                            + server.store().mismatch(MemorySegment.ofArray(expected)));
                }
                out.println(writes + " write I/Os, each an RDMA READ by the server through a window granting REMOTE_READ only");
                for (int i = writes; i < ios; i++) {
                    while (!client.read(lba(i, 3), blocks(i) * BLOCK_SIZE)) {
                        progress.step();
                    }
                }
                progress.drain();
                out.println((ios - writes) + " read I/Os, each an RDMA WRITE by the server through a window granting"
                        + " REMOTE_WRITE only; every byte as written");
                out.println(ios + " responses by SEND_WITH_INV: " + client.reportedWithInv() + " reported IBV_WC_WITH_INV"
                        + " with the window's rkey, " + client.reportedAsIpCsumOk() + " reported it as IBV_WC_IP_CSUM_OK (rxe; "
                        + client.reportedWithoutRkey() + " of them with invalidated_rkey 0)");
                beforeTheStaleAccess.run();
                BlockRequest last = server.lastServed();
                WcStatus stale = server.probe(last, 0, BLOCK_SIZE,
                        last.op() == BlockRequest.Op.READ ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_READ);
                out.println("the server's " + (last.op() == BlockRequest.Op.READ ? "RDMA WRITE" : "RDMA READ")
                        + " through its last grant (rkey 0x" + Integer.toHexString(last.rkey()) + ") after the response: " + stale);
                if (stale != WcStatus.REM_ACCESS_ERR) {
                    throw new RdmaFailure("the invalidated rkey 0x" + Integer.toHexString(last.rkey()) + " still grants access: " + stale);
                }
                return new Summary(writes, ios - writes, client.reportedWithInv(), client.reportedAsIpCsumOk(), stale);
            }
        }
    }

    /**
     * {@return the server's and the client's QP on the two sides, connected}: the server's QP grants
     * nothing (it only initiates), the client's allows what its windows will grant.
     */
    static Connection connect(Endpoint serverSide, Endpoint clientSide) {
        Qp serverQp = RcConnection.create(serverSide, new QpCap(2 * DEPTH + 1, DEPTH, 1, 1, BlockRequest.RESPONSE_BYTES),
                EnumSet.noneOf(AccessFlag.class));
        Qp clientQp = RcConnection.create(clientSide, QpCap.of(2 * DEPTH, DEPTH),
                EnumSet.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
        RcConnection.Address serverAddress = new RcConnection.Address(serverQp.qpNum(), 0x7000, serverSide.gid());
        RcConnection.Address clientAddress = new RcConnection.Address(clientQp.qpNum(), 0x8000, clientSide.gid());
        RcConnection.connect(serverQp, serverAddress.psn(), clientAddress, Mtu.MTU_1024, DEPTH);
        RcConnection.connect(clientQp, clientAddress.psn(), serverAddress, Mtu.MTU_1024, DEPTH);
        return new Connection(serverQp, clientQp);
    }

    /** The block of the {@code i}th I/O: strided so that I/Os overlap and the whole store is covered. */
    private static long lba(int i, int stride) {
        return (long) i * stride % (BLOCKS - MAX_IO_BYTES / BLOCK_SIZE + 1);
    }

    private static int blocks(int i) {
        return 1 + i % (MAX_IO_BYTES / BLOCK_SIZE);
    }

    static byte[] pattern(int seed, int length) {
        byte[] bytes = new byte[length];
        for (int j = 0; j < length; j++) {
            bytes[j] = (byte) (seed * 31 + j * 7 + (j >> 8));
        }
        return bytes;
    }

    /** Drives both sides from one thread, checking each read against what was written. */
    private static final class Progress {
        private final BlockServer server;
        private final BlockClient client;
        private final byte[] expected;
        private long lastProgress = System.nanoTime();

        Progress(BlockServer server, BlockClient client, byte[] expected) {
            this.server = server;
            this.client = client;
            this.expected = expected;
        }

        void step() {
            boolean moved = server.serve() > 0;
            Optional<BlockClient.Done> done = client.poll();
            done.ifPresent(this::check);
            if (moved || done.isPresent()) {
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > Polling.TIMEOUT.toNanos()) {
                throw new RdmaFailure("no completion within " + Polling.TIMEOUT.toSeconds() + " s");
            } else {
                Thread.onSpinWait();
            }
        }

        void drain() {
            while (client.busy()) {
                step();
            }
        }

        private void check(BlockClient.Done done) {
            BlockRequest request = done.request();
            if (done.status() != BlockRequest.STATUS_OK) {
                throw new RdmaFailure("the server refused " + request + ": status " + done.status());
            }
            if (request.op() == BlockRequest.Op.READ) {
                int from = (int) request.lba() * BLOCK_SIZE;
                int mismatch = java.util.Arrays.mismatch(done.data(), 0, done.data().length, expected, from, from + request.length());
                if (mismatch != -1) {
                    throw new RdmaFailure("block " + (request.lba() + mismatch / BLOCK_SIZE) + " read back wrong at byte " + mismatch);
                }
            }
        }
    }
}
