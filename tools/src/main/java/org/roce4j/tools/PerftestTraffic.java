package org.roce4j.tools;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.roce4j.verbs.Qp;
import org.roce4j.verbs.SendWr;

/**
 * The measured loops of perftest 6.06 ({@code perftest_resources.c}), one per kind of test, over
 * {@link PerftestResources}. Each returns what its report needs: post times for the latency loops,
 * a {@link PerftestHandshake.BwReport} for the bandwidth loops. A loop that makes no progress for
 * a minute fails instead of spinning for ever as the C tool does.
 */
final class PerftestTraffic {
    private static final long STALL_NANOS = 60_000_000_000L;
    /** How many calls of {@link #stalled} read the clock once. */
    static final int STALL_CHECK_SPINS = 1024;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    /** perftest's ATOMIC_ADD_VALUE / ATOMIC_SWAP_VALUE. */
    static final long ADD_VALUE = 1;
    static final long SWAP_VALUE = 0;

    private final PerftestResources res;
    private final Perftest.Options options;
    private final boolean client;
    private final int[] qpOf;
    private int spins;

    PerftestTraffic(PerftestResources res, Perftest.Options options) {
        this.res = res;
        this.options = options;
        this.client = options.host() != null;
        this.qpOf = new int[res.batch()];
    }

    /** The work request QP {@code i} posts in every test but SEND's receive side. */
    SendWr request(int i, int size, PerftestAddress remote) {
        long local = res.localOffset(i);
        return switch (options.test().verb()) {
            case WRITE -> SendWr.rdmaWrite(i, res.mr, local, size, remote.vaddr(), remote.rkey());
            case READ -> SendWr.rdmaRead(i, res.mr, local, size, remote.vaddr(), remote.rkey());
            case SEND -> SendWr.send(i, res.mr, local, size);
            case ATOMIC -> options.atomic() == Perftest.Atomic.CMP_AND_SWAP
                    ? SendWr.compareAndSwap(i, res.mr, local, remote.vaddr(), remote.rkey(), ADD_VALUE, SWAP_VALUE)
                    : SendWr.fetchAndAdd(i, res.mr, local, remote.vaddr(), remote.rkey(), ADD_VALUE);
        };
    }

    /**
     * write_lat's run_iter_lat_write: each side writes the iteration number into the last byte of
     * the peer's slot (the byte travels in the WRITE's payload, taken from the last byte of the
     * message in our sending slot) and spins on the last byte of its own slot until the peer's
     * number arrives. The server writes first: only it skips the first wait ({@code !(scnt < 1 &&
     * machine == SERVER)}); a client that wrote first could see its first WRITE overwritten.
     * Every WRITE is signaled and waited for before the next.
     */
    long[] writePingpong(int size, PerftestAddress remote) throws PingpongFailure {
        int iters = options.iters();
        long pollAt = res.remoteOffset(0) + size - 1;
        long postAt = res.localOffset(0) + size - 1;
        SendWr write = request(0, size, remote);
        long[] earlierSizes = java.util.Arrays.stream(options.sizes()).filter(s -> s < size).toArray();
        PerftestDataCheck.WriteLatMessages messages = new PerftestDataCheck.WriteLatMessages(
                res.buffer.asSlice(res.remoteOffset(0), size), earlierSizes, iters);
        long[] posted = new long[iters];
        int scnt = 0;
        int rcnt = 0;
        int ccnt = 0;
        while (scnt < iters || rcnt < iters || ccnt < iters) {
            if (rcnt < iters && !(scnt < 1 && !client)) {
                rcnt++;
                long since = System.nanoTime();
                while ((byte) BYTE.getVolatile(res.buffer, pollAt) != (byte) rcnt) {
                    if (stalled(since)) {
                        throw new PingpongFailure("Couldn't get the peer's write number " + rcnt);
                    }
                    Thread.onSpinWait();
                }
                // Before we write: the peer writes again only after it has seen ours.
                messages.arrived(rcnt);
            }
            if (scnt < iters) {
                posted[scnt] = System.nanoTime();
                BYTE.setVolatile(res.buffer, postAt, (byte) ++scnt);
                int number = scnt;
                post(res.qps[0], write, -1, number);
            }
            if (ccnt < iters) {
                ccnt += awaitSend("write", scnt);
            }
        }
        return posted;
    }

    /**
     * run_iter_lat (read_lat, atomic_lat; the client only): post one READ or atomic, wait for its
     * completion, again; the post times are the report's.
     */
    long[] roundTrips(int size, PerftestAddress remote) throws PingpongFailure {
        SendWr wr = request(0, size, remote);
        PerftestDataCheck.Reads reads = reads(size);
        PerftestDataCheck.Fetches fetches = fetches(true);
        long[] posted = new long[options.iters()];
        for (int scnt = 0; scnt < posted.length; scnt++) {
            posted[scnt] = System.nanoTime();
            int number = scnt + 1;
            post(res.qps[0], wr, -1, number);
            awaitSend("request", number);
            checkCompleted(0, reads, fetches);
        }
        return posted;
    }

    /** The READ check of a run of {@code size}-byte READs, or null for the other verbs. */
    private PerftestDataCheck.Reads reads(int size) {
        if (options.test().verb() != Perftest.Verb.READ) {
            return null;
        }
        MemorySegment[] slots = new MemorySegment[res.qps.length];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = res.buffer.asSlice(res.localOffset(i), size);
        }
        return new PerftestDataCheck.Reads(slots);
    }

    /** The atomics' check, or null for the other verbs. */
    private PerftestDataCheck.Fetches fetches(boolean oneAtATime) {
        if (options.test().verb() != Perftest.Verb.ATOMIC) {
            return null;
        }
        return new PerftestDataCheck.Fetches(options.atomic() == Perftest.Atomic.CMP_AND_SWAP, oneAtATime, res.qps.length);
    }

    /**
     * roce4j's data check (perftest 6.06 has none, see {@link PerftestDataCheck}) after a request of QP
     * {@code qp} completed: a READ's bytes, or the value an atomic fetched into our sending slot in host
     * byte order (IBTA o9-28: the original remote data, as the requester's memory holds it).
     */
    private void checkCompleted(int qp, PerftestDataCheck.Reads reads, PerftestDataCheck.Fetches fetches)
            throws PingpongFailure {
        if (reads != null) {
            reads.completed(qp);
        } else if (fetches != null) {
            fetches.completed(qp, res.buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, res.localOffset(qp)));
        }
    }

    /** How many receives a SEND test keeps posted per QP (perftest prints it as "RX depth"). */
    static int recvDepth(Perftest.Options options) {
        return Math.min(512, options.iters() + 1);
    }

    /** ctx_set_recv_wqes: the first receives of a SEND test, posted before the sync handshake. */
    void postReceives(int size) throws PingpongFailure {
        int depth = Math.min(recvDepth(options), options.iters());
        for (int i = 0; i < res.qps.length; i++) {
            for (int n = 0; n < depth; n++) {
                res.postRecv(i, size);
            }
        }
    }

    /**
     * send_lat's run_iter_lat_send: the client sends first, the server first waits for a receive;
     * then each side answers every receive with a SEND, signaled and waited for; receives are
     * posted again while more are due.
     */
    long[] sendPingpong(int size) throws PingpongFailure {
        int iters = options.iters();
        int depth = Math.min(recvDepth(options), iters);
        SendWr send = request(0, size, null);
        long[] posted = new long[iters];
        int scnt = 0;
        int rcnt = 0;
        while (scnt < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && client)) {
                long since = System.nanoTime();
                int n;
                while ((n = res.poll(res.recvCq, qpOf)) == 0) {
                    if (stalled(since)) {
                        throw new PingpongFailure("Couldn't get the peer's send " + (rcnt + 1));
                    }
                    Thread.onSpinWait();
                }
                for (int k = 0; k < n; k++) {
                    rcnt++;
                    if (rcnt + depth <= iters) {
                        res.postRecv(0, size);
                    }
                }
            }
            if (scnt < iters) {
                posted[scnt] = System.nanoTime();
                int number = ++scnt;
                post(res.qps[0], send, -1, number);
                awaitSend("send", number);
            }
        }
        return posted;
    }

    /**
     * run_iter_bw (the client of write_bw, read_bw, atomic_bw, send_bw): every QP keeps up to
     * tx-depth requests in flight, every one signaled, until each has done its iterations.
     */
    PerftestHandshake.BwReport bandwidth(int size, PerftestAddress[] remote) throws PingpongFailure {
        int count = res.qps.length;
        int iters = options.iters();
        int total = iters * count;
        SendWr[] wrs = new SendWr[count];
        for (int i = 0; i < count; i++) {
            wrs[i] = request(i, size, remote[i]);
        }
        int[] scnt = new int[count];
        int[] ccnt = new int[count];
        PerftestDataCheck.Reads reads = reads(size);
        PerftestDataCheck.Fetches fetches = fetches(false);
        long[] posted = new long[total];
        long[] completed = new long[total];
        int sent = 0;
        int done = 0;
        long last = System.nanoTime();
        while (done < total) {
            for (int i = 0; i < count; i++) {
                while (scnt[i] < iters && scnt[i] - ccnt[i] < options.txDepth()) {
                    posted[sent++] = System.nanoTime();
                    Qp qp = res.qps[i];
                    SendWr wr = wrs[i];
                    int number = ++scnt[i];
                    post(qp, wr, i, number);
                }
            }
            int n = res.poll(res.sendCq, qpOf);
            if (n > 0) {
                long now = System.nanoTime();
                for (int k = 0; k < n; k++) {
                    ccnt[qpOf[k]]++;
                    completed[done++] = now;
                }
                for (int k = 0; k < n; k++) {
                    checkCompleted(qpOf[k], reads, fetches);
                }
                last = now;
            } else if (stalled(last)) {
                throw new PingpongFailure("Couldn't poll a completion: sent " + sent + " completed " + done);
            }
        }
        return PerftestReport.bandwidth(size, posted, completed);
    }

    /**
     * run_iter_bw_server (send_bw's server): receive every QP's iterations, posting receives again
     * while more are due; the report spans the first receive completion to the last.
     */
    PerftestHandshake.BwReport receiveAll(int size) throws PingpongFailure {
        int count = res.qps.length;
        int iters = options.iters();
        int depth = Math.min(recvDepth(options), iters);
        int[] rcnt = new int[count];
        long total = (long) iters * count;
        long received = 0;
        long first = 0;
        long lastCompletion = 0;
        long last = System.nanoTime();
        while (received < total) {
            int n = res.poll(res.recvCq, qpOf);
            if (n > 0) {
                long now = System.nanoTime();
                for (int k = 0; k < n; k++) {
                    int i = qpOf[k];
                    rcnt[i]++;
                    if (received++ == 0) {
                        first = now;
                    }
                    if (rcnt[i] + depth <= iters) {
                        res.postRecv(i, size);
                    }
                }
                last = now;
                lastCompletion = now;
            } else {
                if (stalled(last)) {
                    throw new PingpongFailure("Couldn't get a receive completion: received " + received + " of " + total);
                }
                Thread.onSpinWait();
            }
        }
        return PerftestReport.received(size, total, first, lastCompletion);
    }

    /** What a {@code -D} run measured: the iterations completed while sampling, and how long it sampled. */
    record Counted(long iterations, long sampleNanos) {
    }

    /**
     * {@code -D} for the latency tests: the loops of {@link #writePingpong}, {@link #roundTrips} and
     * {@link #sendPingpong} until the duration ends, counting the send completions that come while
     * it samples (as run_iter_lat_write, run_iter_lat and run_iter_lat_send do in DURATION mode); a
     * wait for the peer gives up when the duration ends; receives are always posted again.
     */
    Counted latencyFor(int size, PerftestAddress remote, PerftestDuration duration) throws PingpongFailure {
        Perftest.Verb verb = options.test().verb();
        SendWr wr = request(0, size, remote);
        long pollAt = res.remoteOffset(0) + size - 1;
        long postAt = res.localOffset(0) + size - 1;
        boolean waitsFirst = verb == Perftest.Verb.WRITE ? client : !client; // who does not go first
        boolean answers = verb == Perftest.Verb.WRITE || verb == Perftest.Verb.SEND;
        long counted = 0;
        int scnt = 0;
        int rcnt = 0;
        while (!duration.ended()) {
            if (answers && !(scnt < 1 && !waitsFirst)) {
                rcnt++;
                if (!awaitPeer(verb, pollAt, rcnt, size, duration)) {
                    break;
                }
            }
            if (verb == Perftest.Verb.WRITE) {
                BYTE.setVolatile(res.buffer, postAt, (byte) (scnt + 1));
            }
            int number = ++scnt;
            post(res.qps[0], wr, -1, number);
            if (duration.ended()) {
                break;
            }
            awaitSend("request", number);
            if (duration.sampling()) {
                counted++;
            }
        }
        return new Counted(counted, duration.sampleNanos());
    }

    /** The ping-pongs' wait for the peer's next message; false when the duration ended first. */
    private boolean awaitPeer(Perftest.Verb verb, long pollAt, int rcnt, int size, PerftestDuration duration)
            throws PingpongFailure {
        if (verb == Perftest.Verb.WRITE) {
            while ((byte) BYTE.getVolatile(res.buffer, pollAt) != (byte) rcnt) {
                if (duration.ended()) {
                    return false;
                }
                Thread.onSpinWait();
            }
            return true;
        }
        while (res.poll(res.recvCq, qpOf) == 0) {
            if (duration.ended()) {
                return false;
            }
            Thread.onSpinWait();
        }
        res.postRecv(0, size);
        return true;
    }

    /** {@code -D} for the bandwidth clients: {@link #bandwidth} until the end, counting completions while sampling. */
    Counted bandwidthFor(int size, PerftestAddress[] remote, PerftestDuration duration) throws PingpongFailure {
        int count = res.qps.length;
        SendWr[] wrs = new SendWr[count];
        for (int i = 0; i < count; i++) {
            wrs[i] = request(i, size, remote[i]);
        }
        int[] outstanding = new int[count];
        long counted = 0;
        while (!duration.ended()) {
            for (int i = 0; i < count; i++) {
                while (outstanding[i] < options.txDepth()) {
                    Qp qp = res.qps[i];
                    SendWr wr = wrs[i];
                    post(qp, wr, i, -1);
                    outstanding[i]++;
                }
            }
            int n = res.poll(res.sendCq, qpOf);
            boolean sampling = duration.sampling();
            for (int k = 0; k < n; k++) {
                outstanding[qpOf[k]]--;
                if (sampling) {
                    counted++;
                }
            }
        }
        return new Counted(counted, duration.sampleNanos());
    }

    /** {@code -D} for send_bw's server: receive until the end, always posting again, counting while sampling. */
    Counted receiveFor(int size, PerftestDuration duration) throws PingpongFailure {
        long counted = 0;
        while (!duration.ended()) {
            int n = res.poll(res.recvCq, qpOf);
            boolean sampling = duration.sampling();
            for (int k = 0; k < n; k++) {
                res.postRecv(qpOf[k], size);
                if (sampling) {
                    counted++;
                }
            }
            if (n == 0) {
                Thread.onSpinWait();
            }
        }
        return new Counted(counted, duration.sampleNanos());
    }

    /**
     * Waits for the send completion of one request, {@code what} number {@code number} (the failure
     * line's words); returns how many completions came.
     */
    private int awaitSend(String what, int number) throws PingpongFailure {
        long since = System.nanoTime();
        int n;
        while ((n = res.poll(res.sendCq, qpOf)) == 0) {
            if (stalled(since)) {
                throw new PingpongFailure("Couldn't poll the completion of " + what + " " + number);
            }
            Thread.onSpinWait();
        }
        return n;
    }

    /**
     * Has the loop that began waiting at {@code since} waited too long (or been interrupted)? It
     * reads the clock on every {@value #STALL_CHECK_SPINS}th call only, and its caller builds the
     * failure's text only when it says yes: a spin loop turns here on every empty poll, and where
     * the clocksource is not the TSC (a qemu TCG VM's is the HPET) System.nanoTime() is a system
     * call and an emulated device read. perftest's own loops read nothing but memory.
     */
    private boolean stalled(long since) {
        if (++spins % STALL_CHECK_SPINS != 0) {
            return false;
        }
        return System.nanoTime() - since > STALL_NANOS || Thread.currentThread().isInterrupted();
    }

    /**
     * Posts {@code wr} on {@code qp}; a failure is the C tool's {@link #postFailure} line, built
     * only then: a post allocates nothing.
     */
    private static void post(Qp qp, SendWr wr, int qpIndex, int number) throws PingpongFailure {
        try {
            qp.postSend(wr);
        } catch (RuntimeException e) {
            throw new PingpongFailure(postFailure(qpIndex, number), e);
        }
    }

    /** "Couldn't post send: qp QP_INDEX scnt=NUMBER", either part left out when negative. */
    static String postFailure(int qpIndex, int number) {
        String which = qpIndex < 0 ? "" : "qp " + qpIndex;
        String count = number < 0 ? "" : "scnt=" + number;
        return "Couldn't post send: " + which + (which.isEmpty() || count.isEmpty() ? "" : " ") + count;
    }
}
