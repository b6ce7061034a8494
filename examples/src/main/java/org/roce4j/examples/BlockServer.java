package org.roce4j.examples;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.verbs.WrOpcode;

/**
 * The target of the block store: a store of blocks in its own memory, and a loop that answers each
 * {@link BlockRequest} the way NVMe-oF, iSER and SMB Direct targets do. A read I/O is an RDMA WRITE of
 * the blocks into the client's window followed by the response; a write I/O is an RDMA READ from the
 * window, then (its data in the store) the response. Every response is a SEND_WITH_INV naming the
 * window's rkey (IBTA 9.4.1, SEND with Invalidate: its IETH names the R_Key, which the client's
 * responder invalidates before it completes the receive; rxe_resp.c invalidate_rkey), so the client's
 * grant is gone by the time it learns the I/O is done, at no cost to it: no LOCAL_INV of its own.
 *
 * <p>The server registers nothing for remote access: it only initiates. Its store needs LOCAL_WRITE
 * because RDMA READ responses land in it. Responses are posted inline (copied at post time), so their
 * buffer is free again at once.
 */
public final class BlockServer {
    /** wr_id kinds, in the high half: the low half is the request's tag or the receive's index. */
    private static final long RECEIVE = 1L << 32;
    private static final long DATA_READ = 2L << 32;
    private static final long RESPONSE = 3L << 32;
    private static final long PROBE = 4L << 32;

    private final Endpoint endpoint;
    private final Qp qp;
    private final int blockSize;
    private final int maxIoBytes;
    private final Mr store;
    private final Mr requests;
    private final Mr responses;
    private final BlockRequest[] waitingForData;
    private final WorkCompletion[] completions = new WorkCompletion[16];
    private BlockRequest lastServed;

    /**
     * A server of {@code blocks} blocks on a connected RC QP; posts a receive for each of the client's {@code depth} request slots.
     *
     * @param endpoint   the server's side (its CQ is the QP's)
     * @param qp         an RC QP, at least in RTR, with room for {@code 2 * depth + 1} sends and {@code depth}
     *                   receives, inline data of {@link BlockRequest#RESPONSE_BYTES}, and {@code depth} outstanding READs
     * @param blocks     the store's size in blocks
     * @param blockSize  the bytes of a block
     * @param maxIoBytes the largest I/O a request may ask for
     * @param depth      the requests a client may have outstanding
     */
    public BlockServer(Endpoint endpoint, Qp qp, int blocks, int blockSize, int maxIoBytes, int depth) {
        this.endpoint = endpoint;
        this.qp = qp;
        this.blockSize = blockSize;
        this.maxIoBytes = maxIoBytes;
        this.store = endpoint.register((long) blocks * blockSize, EnumSet.of(AccessFlag.LOCAL_WRITE));
        this.requests = endpoint.register((long) depth * BlockRequest.BYTES, EnumSet.of(AccessFlag.LOCAL_WRITE));
        this.responses = endpoint.register((long) depth * BlockRequest.RESPONSE_BYTES, EnumSet.noneOf(AccessFlag.class));
        this.waitingForData = new BlockRequest[depth];
        for (int i = 0; i < depth; i++) {
            postReceive(i);
        }
    }

    /** {@return the store's bytes} */
    public MemorySegment store() {
        return store.segment();
    }

    /** {@return the last request answered (its window is invalidated), or null} */
    public BlockRequest lastServed() {
        return lastServed;
    }

    /**
     * Handles every completion there is: starts the I/O of each request that arrived, answers each
     * whose data has come in.
     *
     * @return how many completions it handled
     * @throws RdmaFailure if an operation failed
     */
    public int serve() {
        int n = endpoint.cq().poll(completions);
        for (int i = 0; i < n; i++) {
            handle(completions[i]);
        }
        return n;
    }

    private void handle(WorkCompletion wc) {
        if (wc.status() != WcStatus.SUCCESS) {
            throw new RdmaFailure("the server's work request 0x" + Long.toHexString(wc.wrId()) + " failed: " + wc);
        }
        int index = (int) wc.wrId();
        long kind = wc.wrId() & ~0xFFFF_FFFFL;
        if (kind == RECEIVE) {
            BlockRequest request = BlockRequest.decode(requests.segment(), (long) index * BlockRequest.BYTES);
            postReceive(index); // the request is copied out: the buffer can take the next one
            if (request == null || request.tag() < 0 || request.tag() >= waitingForData.length) {
                throw new RdmaFailure("a request the server cannot answer: " + request);
            }
            execute(request);
        } else if (kind == DATA_READ) {
            BlockRequest request = waitingForData[index];
            waitingForData[index] = null;
            respond(request, BlockRequest.STATUS_OK, List.of());
        } else if (kind != RESPONSE) {
            throw new RdmaFailure("a completion the server did not ask for: " + wc);
        }
    }

    /** Waits for the next request and returns it without doing anything: what a test's misbehaving server starts from. */
    BlockRequest awaitRequest() {
        WorkCompletion wc = Polling.next(endpoint.cq());
        if (wc.opcode() != WcOpcode.RECV) {
            throw new RdmaFailure("expected a request, got " + wc);
        }
        int index = (int) wc.wrId();
        postReceive(index);
        return BlockRequest.decode(requests.segment(), (long) index * BlockRequest.BYTES);
    }

    /**
     * Starts the I/O a request asks for: WRITE then the response for a read I/O (the responder places
     * the WRITE before it delivers the SEND that follows it on the QP, IBTA 9.5 ordering), READ first
     * for a write I/O (answered when its data is in, {@link #handle}).
     */
    void execute(BlockRequest request) {
        long offset = request.lba() * blockSize;
        if (request.lba() < 0 || request.length() <= 0 || request.length() > maxIoBytes
                || offset + request.length() > store.length()) {
            respond(request, BlockRequest.STATUS_OUT_OF_RANGE, List.of());
            return;
        }
        SendWr data = new SendWr().wrId(DATA_READ | request.tag()).sge(store, offset, request.length())
                .remote(request.address(), request.rkey());
        if (request.op() == BlockRequest.Op.READ) {
            respond(request, BlockRequest.STATUS_OK, List.of(data.opcode(WrOpcode.RDMA_WRITE).signaled(false)));
        } else {
            waitingForData[request.tag()] = request;
            qp.postSend(data.opcode(WrOpcode.RDMA_READ).signaled(true));
        }
    }

    /** Posts {@code before}, then the response: a SEND_WITH_INV of the request's rkey. */
    private void respond(BlockRequest request, int status, List<SendWr> before) {
        long at = (long) request.tag() * BlockRequest.RESPONSE_BYTES;
        BlockRequest.encodeResponse(responses.segment(), at, request.tag(), status);
        SendWr response = new SendWr().wrId(RESPONSE | request.tag()).opcode(WrOpcode.SEND_WITH_INV)
                .invalidateRkey(request.rkey()).sge(responses, at, BlockRequest.RESPONSE_BYTES).inline(true).signaled(true);
        if (before.isEmpty()) {
            qp.postSend(response);
        } else {
            qp.postSend(List.of(before.getFirst(), response));
        }
        lastServed = request;
    }

    /**
     * What a buggy or hostile server could try with a grant: {@code opcode} (RDMA_WRITE or RDMA_READ) of
     * {@code length} bytes at {@code offset} from the grant's address, under its rkey. A remote access
     * error ends the connection (the requester completes REM_ACCESS_ERR after the NAK, the responder that sent
     * it is in ERR: rxe_resp.c, its class C error with an asynchronous QP_ACCESS_ERR), so this is the connection's last act.
     *
     * @param grant  a request the server received
     * @param offset where, from the window's first byte (may lie outside it)
     * @param length how many bytes
     * @param opcode RDMA_WRITE or RDMA_READ
     * @return the status the access completed with
     */
    public WcStatus probe(BlockRequest grant, long offset, int length, WrOpcode opcode) {
        qp.postSend(new SendWr().wrId(PROBE).opcode(opcode).signaled(true).sge(store, 0, length)
                .remote(grant.address() + offset, grant.rkey()));
        WorkCompletion[] one = new WorkCompletion[1];
        long deadline = System.nanoTime() + Polling.TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (endpoint.cq().poll(one) == 1 && one[0].wrId() == PROBE) {
                return one[0].status();
            }
            Thread.onSpinWait();
        }
        throw new RdmaFailure("the probe did not complete within " + Polling.TIMEOUT.toSeconds() + " s");
    }

    private void postReceive(int index) {
        qp.postRecv(RecvWr.of(RECEIVE | index, requests, (long) index * BlockRequest.BYTES, BlockRequest.BYTES));
    }
}
