package org.roce4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * A request/response service over UD: each request datagram (an 8-byte id and UTF-8 text) is
 * answered with the same id and the text upper-cased, sent back to the QP and GID it came from
 * (the completion's src_qp and the GRH). Requests are idempotent, so a client may repeat one
 * whose answer was lost — UD gives no delivery guarantee.
 */
public final class UdServer {
    private final UdPeer peer;
    private final WorkCompletion[] one = new WorkCompletion[1];
    private long answered;

    /**
     * A server on {@code endpoint} with a UD QP and {@code receives} receive buffers.
     *
     * @param endpoint      the server's side
     * @param receives      receive buffers posted
     * @param datagramBytes the largest request (and answer), id included
     */
    public UdServer(Endpoint endpoint, int receives, int datagramBytes) {
        this.peer = new UdPeer(endpoint, receives, datagramBytes);
    }

    /** {@return the server's UD QP number: what clients send to} */
    public int qpNum() {
        return peer.qp.qpNum();
    }

    /**
     * Answers every request that has arrived.
     *
     * @return how many were answered
     */
    public int serve() {
        int n = 0;
        while (peer.endpoint.cq().poll(one) == 1) {
            WorkCompletion wc = one[0];
            if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.RECV) {
                throw new RdmaFailure("unexpected completion at the server: " + wc);
            }
            MemorySegment request = peer.datagram(wc);
            long id = request.get(UdPeer.ID, 0);
            String text = new String(request.asSlice(8).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            var replyTo = peer.handleTo(peer.sender(wc));
            peer.repost((int) wc.wrId());
            peer.send(-1, replyTo, wc.srcQp(), id, text.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
            answered++;
            n++;
        }
        return n;
    }

    /** {@return requests answered so far (repeats included)} */
    public long answered() {
        return answered;
    }
}
