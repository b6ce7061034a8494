package org.roce4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * A client of {@link UdServer}: sends a request, waits for the answer with the same id, and sends
 * the request again when none comes within the retry interval (a lost request or answer).
 */
public final class UdClient {
    private final UdPeer peer;
    private final Ah server;
    private final int serverQpn;
    private final Duration retryAfter;
    private final int attempts;
    private final WorkCompletion[] one = new WorkCompletion[1];
    private long nextId = 1;
    private long sends;

    /**
     * A client on {@code endpoint} that talks to the server at {@code serverGid}, QP {@code serverQpn}.
     *
     * @param endpoint      the client's side
     * @param serverGid     the server's GID
     * @param serverQpn     the server's UD QP number
     * @param datagramBytes the largest request and answer, id included
     * @param retryAfter    how long to wait for an answer before sending again
     * @param attempts      how many times to send a request before giving up
     */
    public UdClient(Endpoint endpoint, Gid serverGid, int serverQpn, int datagramBytes, Duration retryAfter, int attempts) {
        this.peer = new UdPeer(endpoint, 8, datagramBytes);
        this.server = peer.handleTo(serverGid);
        this.serverQpn = serverQpn;
        this.retryAfter = retryAfter;
        this.attempts = attempts;
    }

    /**
     * {@return the server's answer to {@code text}}; {@code pump} runs between polls (in a single
     * process it is the server's {@link UdServer#serve()}, elsewhere nothing).
     *
     * @param text the request
     * @param pump what to run while waiting
     * @throws RdmaFailure if no answer came after every attempt
     */
    public String call(String text, Runnable pump) {
        long id = nextId++;
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        for (int attempt = 0; attempt < attempts; attempt++) {
            peer.send(-1, server, serverQpn, id, payload);
            sends++;
            long deadline = System.nanoTime() + retryAfter.toNanos();
            while (System.nanoTime() < deadline) {
                pump.run();
                if (peer.endpoint.cq().poll(one) == 0) {
                    Thread.onSpinWait();
                    continue;
                }
                WorkCompletion wc = one[0];
                if (wc.status() != WcStatus.SUCCESS || wc.opcode() != WcOpcode.RECV) {
                    throw new RdmaFailure("unexpected completion at the client: " + wc);
                }
                MemorySegment answer = peer.datagram(wc);
                long answerId = answer.get(UdPeer.ID, 0);
                String body = new String(answer.asSlice(8).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                peer.repost((int) wc.wrId());
                if (answerId == id) {
                    return body;
                }
                // An answer to an earlier attempt of an earlier request: already handled.
            }
        }
        throw new RdmaFailure("no answer to request " + id + " after " + attempts + " attempts");
    }

    /** {@return the request datagrams sent so far, repeats included} */
    public long sends() {
        return sends;
    }
}
