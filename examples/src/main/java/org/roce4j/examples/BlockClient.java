package org.roce4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * The initiator of the block store, granting its peer one memory window per I/O the way storage
 * initiators do (NVMe-oF, iSER, SMB Direct). Its buffers are one region registered with MW_BIND and no
 * remote rights of its own: nothing of it is reachable until a request grants it. For each request it
 * posts, on the QP it sends the request on, a BIND_MW of a fresh type 2 window over exactly that
 * request's buffer with exactly the right the server needs (REMOTE_WRITE for a read I/O, REMOTE_READ for
 * a write I/O), then the request naming the window's rkey, address and length. A type 2 window serves
 * only the QP that bound it (IBTA 10.6.7.2.4), and the server can invalidate it remotely: its response is
 * a SEND_WITH_INV of that rkey, so when the response's receive completes the grant is gone (IBTA 10.6.7,
 * 9.4.1) and the client checks that its completion says so.
 *
 * <p>How a device reports the invalidation varies, and the check copes. IBTA and libibverbs: the receive
 * carries {@code IBV_WC_WITH_INV} and {@code invalidated_rkey} is the window's. Linux rxe (departure [23]
 * of the conformance lists) writes the kernel's {@code IB_WC_WITH_INVALIDATE} bit, which libibverbs reads
 * as {@code IBV_WC_IP_CSUM_OK}, a flag that has no meaning on an RC receive (raw packet QPs only): the
 * client takes it for WITH_INV, and accepts an {@code invalidated_rkey} of 0 with it: that is what roce4j's
 * ibverbs backend reads there (it reads the {@code imm_data}/{@code invalidated_rkey} union only under
 * IBV_WC_WITH_INV), seen for every response on rxe0 of kernel 6.12. Anything else is a failure: a response that did not invalidate leaves the buffer open to
 * the peer.
 *
 * <p>The windows are not reused: a BIND_MW work request does not update {@code Mw.rkey()} (libibverbs
 * leaves {@code ibv_mw.rkey} to the caller, and roce4j has no setter), and a device binds a type 2 window
 * only when the work request names its current rkey. So each request allocates its window, and a slot
 * closes its previous (invalidated) window when it takes the next request: the last grant of each slot
 * stays allocated, which lets a peer show that its old rkey is refused because it was invalidated, not
 * because it was deallocated.
 */
public final class BlockClient implements AutoCloseable {
    /** wr_id kinds, in the high half: the low half is the slot. */
    private static final long REQUEST = 1L << 32;
    private static final long RESPONSE = 2L << 32;
    private static final long BIND = 3L << 32;

    /**
     * A finished I/O.
     *
     * @param request what was asked (its rkey no longer grants anything)
     * @param status  the server's status ({@link BlockRequest#STATUS_OK} when the blocks moved)
     * @param data    for a read I/O, the bytes read; empty for a write
     */
    public record Done(BlockRequest request, int status, byte[] data) {
    }

    /** A request slot: a buffer of the largest I/O, a request message, a response receive. */
    private static final class Slot {
        BlockRequest request;
        Mw window;
        boolean requestSent;
        boolean answered;

        boolean busy() {
            return request != null && !(requestSent && answered);
        }
    }

    private final Endpoint endpoint;
    private final Qp qp;
    private final int blockSize;
    private final int maxIoBytes;
    private final Mr buffers;
    private final Mr requests;
    private final Mr responses;
    private final Slot[] slots;
    private final WorkCompletion[] one = new WorkCompletion[1];
    private long reportedWithInv;
    private long reportedAsIpCsumOk;
    private long reportedWithoutRkey;

    /**
     * A client on a connected RC QP.
     *
     * @param endpoint   the client's side (its CQ is the QP's)
     * @param qp         an RC QP allowing REMOTE_READ and REMOTE_WRITE (a window's rights are within its QP's),
     *                   with room for {@code 2 * depth} sends and {@code depth} receives
     * @param blockSize  the bytes of a block
     * @param maxIoBytes the largest I/O
     * @param depth      the requests outstanding at most
     */
    public BlockClient(Endpoint endpoint, Qp qp, int blockSize, int maxIoBytes, int depth) {
        this.endpoint = endpoint;
        this.qp = qp;
        this.blockSize = blockSize;
        this.maxIoBytes = maxIoBytes;
        // IBTA C10-74: a window that grants REMOTE_WRITE needs its region's LOCAL_WRITE.
        this.buffers = endpoint.register((long) depth * maxIoBytes, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
        this.requests = endpoint.register((long) depth * BlockRequest.BYTES, EnumSet.noneOf(AccessFlag.class));
        this.responses = endpoint.register((long) depth * BlockRequest.RESPONSE_BYTES, EnumSet.of(AccessFlag.LOCAL_WRITE));
        this.slots = new Slot[depth];
        for (int i = 0; i < depth; i++) {
            slots[i] = new Slot();
            postReceive(i);
        }
    }

    /**
     * Asks for {@code length} bytes from block {@code lba} on: the server will RDMA WRITE them into a window.
     *
     * @param lba    the first block
     * @param length the bytes, a whole number of blocks up to the largest I/O
     * @return false if every slot is busy (poll, then try again)
     */
    public boolean read(long lba, int length) {
        return submit(BlockRequest.Op.READ, lba, length, null);
    }

    /**
     * Stores {@code data} from block {@code lba} on: the server will RDMA READ it from a window.
     *
     * @param lba  the first block
     * @param data a whole number of blocks up to the largest I/O
     * @return false if every slot is busy (poll, then try again)
     */
    public boolean write(long lba, byte[] data) {
        return submit(BlockRequest.Op.WRITE, lba, data.length, data);
    }

    private boolean submit(BlockRequest.Op op, long lba, int length, byte[] data) {
        if (length <= 0 || length > maxIoBytes || length % blockSize != 0) {
            throw new IllegalArgumentException("an I/O of " + length + " bytes (blocks of " + blockSize
                    + ", at most " + maxIoBytes + ")");
        }
        int tag = freeSlot();
        if (tag < 0 || requestUnacknowledged()) {
            return false;
        }
        Slot slot = slots[tag];
        if (slot.window != null) {
            slot.window.close(); // the previous request's window, invalidated by its response
        }
        long offset = (long) tag * maxIoBytes;
        if (data != null) {
            MemorySegment.copy(MemorySegment.ofArray(data), 0, buffers.segment(), offset, length);
        }
        slot.window = endpoint.pd().allocMw(MwType.TYPE_2);
        // ibv_inc_rkey: the key byte is the consumer's; a fresh window's next key is never a key handed out before.
        int rkey = Mw.incRkey(slot.window.rkey());
        Set<AccessFlag> right = op == BlockRequest.Op.READ ? EnumSet.of(AccessFlag.REMOTE_WRITE) : EnumSet.of(AccessFlag.REMOTE_READ);
        MwBindInfo exactlyThisBuffer = new MwBindInfo(buffers, buffers.address() + offset, length, right);
        slot.request = new BlockRequest(op, tag, lba, length, rkey, buffers.address() + offset);
        slot.requestSent = false;
        slot.answered = false;
        slot.request.encode(requests.segment(), (long) tag * BlockRequest.BYTES);
        // The bind is unsignaled (a failure still completes, MW_BIND_ERR): the send queue executes it before
        // the request that follows it, so the window is bound before the server can hear of it.
        SendWr bind = SendWr.bindMw(BIND | tag, slot.window, rkey, exactlyThisBuffer).signaled(false);
        SendWr send = SendWr.send(REQUEST | tag, requests, (long) tag * BlockRequest.BYTES, BlockRequest.BYTES);
        qp.postSend(List.of(bind, send));
        return true;
    }

    /**
     * Handles one completion, if there is one.
     *
     * @return the I/O its response finished, if it was a response
     * @throws RdmaFailure if an operation failed, or a response did not invalidate its window
     */
    public Optional<Done> poll() {
        if (endpoint.cq().poll(one) == 0) {
            return Optional.empty();
        }
        WorkCompletion wc = one[0];
        if (wc.status() != WcStatus.SUCCESS) {
            throw new RdmaFailure("the client's work request 0x" + Long.toHexString(wc.wrId()) + " failed: " + wc);
        }
        int index = (int) wc.wrId();
        long kind = wc.wrId() & ~0xFFFF_FFFFL;
        if (kind == REQUEST) {
            slots[index].requestSent = true;
            return Optional.empty();
        }
        if (kind != RESPONSE || wc.opcode() != WcOpcode.RECV) {
            throw new RdmaFailure("a completion the client did not ask for: " + wc);
        }
        long at = (long) index * BlockRequest.RESPONSE_BYTES;
        int tag = BlockRequest.responseTag(responses.segment(), at);
        int status = BlockRequest.responseStatus(responses.segment(), at);
        postReceive(index);
        if (tag < 0 || tag >= slots.length || slots[tag].request == null || slots[tag].answered) {
            throw new RdmaFailure("a response to no outstanding request (tag " + tag + ")");
        }
        Slot slot = slots[tag];
        checkInvalidated(wc, slot.request);
        slot.answered = true;
        byte[] data = slot.request.op() == BlockRequest.Op.READ && status == BlockRequest.STATUS_OK
                ? buffers.segment().asSlice((long) tag * maxIoBytes, slot.request.length()).toArray(ValueLayout.JAVA_BYTE)
                : new byte[0];
        return Optional.of(new Done(slot.request, status, data));
    }

    /**
     * Checks that the response's receive reports the invalidation of the request's rkey (see the class
     * comment for rxe's way of reporting it) and counts how it was reported.
     */
    private void checkInvalidated(WorkCompletion wc, BlockRequest request) {
        if (wc.has(WcFlag.WITH_INV)) {
            if (wc.invalidatedRkey() != request.rkey()) {
                throw new RdmaFailure("the response to request " + request.tag() + " invalidated rkey 0x"
                        + Integer.toHexString(wc.invalidatedRkey()) + ", not its window's 0x" + Integer.toHexString(request.rkey()));
            }
            reportedWithInv++;
        } else if (wc.has(WcFlag.IP_CSUM_OK)) {
            // rxe: IB_WC_WITH_INVALIDATE (1 << 2) read as IBV_WC_IP_CSUM_OK, departure [23]
            if (wc.invalidatedRkey() != request.rkey() && wc.invalidatedRkey() != 0) {
                throw new RdmaFailure("the response to request " + request.tag() + " invalidated rkey 0x"
                        + Integer.toHexString(wc.invalidatedRkey()) + ", not its window's 0x" + Integer.toHexString(request.rkey()));
            }
            reportedAsIpCsumOk++;
            if (wc.invalidatedRkey() == 0) {
                reportedWithoutRkey++;
            }
        } else {
            throw new RdmaFailure("the response to request " + request.tag() + " did not invalidate its window (rkey 0x"
                    + Integer.toHexString(request.rkey()) + "): " + wc);
        }
    }

    /** {@return whether a request is outstanding} */
    public boolean busy() {
        for (Slot slot : slots) {
            if (slot.busy()) {
                return true;
            }
        }
        return false;
    }

    /** {@return the responses whose receive carried IBV_WC_WITH_INV} */
    public long reportedWithInv() {
        return reportedWithInv;
    }

    /** {@return the responses whose receive carried IBV_WC_IP_CSUM_OK in its place (rxe)} */
    public long reportedAsIpCsumOk() {
        return reportedAsIpCsumOk;
    }

    /** {@return the client's I/O buffers (slot {@code i}'s at {@code i * maxIoBytes}): what tests look at} */
    MemorySegment buffers() {
        return buffers.segment();
    }

    /**
     * Whether a request's SEND is still unacknowledged. The client binds the next window only when none is:
     * the emulator's requester, going back to resend after a NAK or a timeout, fails on a BIND_MW it meets
     * again on the way (a NullPointerException in Requester.sendPacket: the work request is local, it has no
     * packet) and the QP stops sending. With no SEND outstanding behind a bind, a resend never passes one.
     * Requests still overlap at the server: only their SENDs go one at a time.
     */
    private boolean requestUnacknowledged() {
        for (Slot slot : slots) {
            if (slot.request != null && !slot.requestSent) {
                return true;
            }
        }
        return false;
    }

    /** {@return of those, the ones whose invalidated_rkey was 0 (rxe through the ibverbs backend)} */
    public long reportedWithoutRkey() {
        return reportedWithoutRkey;
    }

    private int freeSlot() {
        for (int i = 0; i < slots.length; i++) {
            if (!slots[i].busy()) {
                return i;
            }
        }
        return -1;
    }

    private void postReceive(int index) {
        qp.postRecv(RecvWr.of(RESPONSE | index, responses, (long) index * BlockRequest.RESPONSE_BYTES,
                BlockRequest.RESPONSE_BYTES));
    }

    /** Deallocates the windows still allocated (ibv_dealloc_mw): before the endpoint closes the PD. */
    @Override
    public void close() {
        for (Slot slot : slots) {
            if (slot.window != null) {
                slot.window.close();
                slot.window = null;
            }
        }
    }
}
