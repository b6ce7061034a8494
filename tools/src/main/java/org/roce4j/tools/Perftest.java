package org.roce4j.tools;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.util.function.IntConsumer;
import java.util.random.RandomGenerator;

import org.roce4j.cm.ConnectionManager;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.PortAttr;

/**
 * One run of a perftest 6.06 tool ({@code ib_write_lat}, {@code ib_write_bw}, {@code ib_read_lat},
 * {@code ib_read_bw}, {@code ib_send_lat}, {@code ib_send_bw}, {@code ib_atomic_lat}, {@code
 * ib_atomic_bw}) over RC, against the Verbs API alone, speaking perftest's TCP script
 * ({@link PerftestHandshake}) so that either side can be the C tool. The script, as the captures
 * of C against C show it (Debian's perftest 4.5-0.17, version string 6.06):
 * <ol>
 *   <li>version, cycle buffer, cache line, MTU;</li>
 *   <li>latency tests: one record exchange; then one record exchange per QP; connect the QPs; one
 *       record exchange per QP again, then one more (not send_lat); SEND tests then post their
 *       receives and sync with one more record exchange (before each message size; send_bw -a
 *       syncs once more after each size);</li>
 *   <li>the test ({@link PerftestTraffic});</li>
 *   <li>write_lat: nothing more. read_lat, atomic_lat, send_lat, send_bw: {@code
 *       ctx_close_connection} (a record exchange and "done\0"). write_bw, read_bw, atomic_bw: a
 *       record exchange, the bandwidth report (the server prints the client's numbers), then
 *       {@code ctx_close_connection}.</li>
 * </ol>
 * Only write_lat and send_lat have both sides send; in the other tests the server's QP is only a
 * target (send_bw: a receiver), and read_lat's and atomic_lat's server prints no result row.
 */
final class Perftest {
    enum Verb { WRITE, READ, SEND, ATOMIC }

    /** {@code -A}: perftest's atomic types. */
    enum Atomic { CMP_AND_SWAP, FETCH_AND_ADD }

    enum Test {
        WRITE_LAT(Verb.WRITE, true, "RDMA_Write Latency Test"),
        WRITE_BW(Verb.WRITE, false, "RDMA_Write BW Test"),
        READ_LAT(Verb.READ, true, "RDMA_Read Latency Test"),
        READ_BW(Verb.READ, false, "RDMA_Read BW Test"),
        SEND_LAT(Verb.SEND, true, "Send Latency Test"),
        SEND_BW(Verb.SEND, false, "Send BW Test"),
        ATOMIC_LAT(Verb.ATOMIC, true, "Latency Test"),
        ATOMIC_BW(Verb.ATOMIC, false, "BW Test");

        private final Verb verb;
        private final boolean latency;
        private final String title;

        Test(Verb verb, boolean latency, String title) {
            this.verb = verb;
            this.latency = latency;
            this.title = title;
        }

        Verb verb() {
            return verb;
        }

        boolean latency() {
            return latency;
        }

        /** The banner line; atomics name their type ("Atomic FETCH_AND_ADD BW Test"). */
        String title(Atomic atomic) {
            return verb == Verb.ATOMIC ? "Atomic " + atomic + " " + title : title;
        }

        /** Both sides post requests (the ping-pongs); otherwise only the client does. */
        boolean bothSidesSend() {
            return latency && (verb == Verb.WRITE || verb == Verb.SEND);
        }

        /** The client's bandwidth numbers go to the server in the report exchange. */
        boolean reportsToServer() {
            return !latency && verb != Verb.SEND;
        }
    }

    /**
     * A run's parameters. {@code size} is the message size of a single-size run; {@code allSizes}
     * ({@code -a}) runs 2, 4, ... 2^23 instead. {@code duration} is {@code -D} in seconds, 0 for a run of
     * {@code iters} iterations. {@code mtu} null means the port's active MTU. {@code rdmaCm} is {@code -R}:
     * rdma_cm connects the QPs and carries the exchange ({@link PerftestCmLink}, {@link PerftestCmConnection}).
     * {@code qpTimeout} is {@code -u}: the RC local ACK timeout exponent (4.096 µs × 2^qpTimeout; perftest's 14).
     */
    record Options(Test test, String host, int port, String ibDev, int ibPort, int gidIndex, long size, boolean allSizes,
                   int iters, int duration, Mtu mtu, int txDepth, int qps, Atomic atomic, boolean rdmaCm,
                   int qpTimeout) {
        static final int ALL_SIZES_LOG2 = 23;

        long maxSize() {
            return allSizes ? 1L << ALL_SIZES_LOG2 : size;
        }

        long[] sizes() {
            if (!allSizes) {
                return new long[] {size};
            }
            long[] sizes = new long[ALL_SIZES_LOG2];
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = 2L << i;
            }
            return sizes;
        }
    }

    static final int CACHE_LINE = 64;
    /** perftest's default CQ moderation of the bandwidth tests, capped by the iterations. */
    static final int CQ_MODERATION = 100;
    /** How long write_lat keeps its QP after a {@code -D} run. */
    static final long LINGER_MILLIS = 1000;

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final DeviceSelector devices;
    private final IntConsumer listening;
    private final RandomGenerator random;
    private final ConnectionManager cm;
    private final VerbsSteps steps = new VerbsSteps();

    Perftest(Options options, PrintWriter out, PrintWriter err, DeviceSelector devices, IntConsumer listening,
             RandomGenerator random, ConnectionManager cm) {
        this.cm = cm;
        this.options = options;
        this.out = out;
        this.err = err;
        this.devices = devices;
        this.listening = listening;
        this.random = random;
    }

    private boolean client() {
        return options.host() != null;
    }

    private Test test() {
        return options.test();
    }

    /** Runs the test; returns the exit code (0, or 1 after printing why to stderr). */
    int run() {
        DeviceSelector.Selection selection = devices.selectOrReport(options.ibDev(), err);
        if (selection == null) {
            return 1;
        }
        int exit;
        try (Arena arena = Arena.ofShared()) {
            exit = run(selection, arena);
        } catch (PingpongFailure e) {
            out.flush();
            err.println(e.getMessage());
            exit = 1;
        }
        try {
            selection.close();
        } catch (Exception e) {
            exit = 1;
        }
        out.flush();
        return exit;
    }

    private int run(DeviceSelector.Selection selection, Arena arena) throws PingpongFailure {
        try {
            Context context = steps.open("Couldn't get context for the device", () -> selection.device().open());
            PortAttr port = VerbsSteps.step("Unable to query port info", () -> context.queryPort(options.ibPort()));
            DeviceAttr device = VerbsSteps.step("Couldn't query device", context::queryDevice);
            Mtu mtu = options.mtu() != null ? options.mtu() : port.activeMtu();
            if (!client()) {
                out.println("\n************************************\n* Waiting for client to connect... *\n"
                        + "************************************");
                out.flush();
            }
            try (PerftestHandshake comm = openExchange(arena)) {
                comm.exchangeVersion(PerftestHandshake.VERSION);
                comm.exchangeMax(PerftestResources.CYCLE_BUFFER);
                comm.exchangeMax(CACHE_LINE);
                mtu = comm.exchangeMtu(mtu);
                // out_reads: the device's max_qp_rd_atom for READ and atomics (perftest's default -o), else 1.
                int outReads = test().verb() == Verb.READ || test().verb() == Verb.ATOMIC ? device.maxQpRdAtom() : 1;
                int recvDepth = test().verb() == Verb.SEND ? PerftestTraffic.recvDepth(options) : 1;
                PerftestCmConnection cmQps = null;
                Context qpContext = context;
                PerftestResources res;
                if (options.rdmaCm()) {
                    cmQps = connectWithRdmaCm(comm);
                    qpContext = cmQps.context();
                    res = PerftestResources.create(qpContext, arena, steps, options, sendDepth(), recvDepth, cmQps.qps(steps));
                    cmQps.establish(options, outReads, res);
                    // create_rdma_cm_connection's second sync: both sides connected.
                    comm.syncBeforeSetUp();
                } else {
                    res = PerftestResources.create(context, arena, steps, options, sendDepth(), recvDepth);
                }
                PerftestAddress[] mine = res.addresses(qpContext, options, outReads, random);
                printInfo(selection, mtu, outReads);
                if (test().latency()) {
                    comm.handShake(mine[0]);
                }
                PerftestAddress[] remote = new PerftestAddress[mine.length];
                for (int i = 0; i < mine.length; i++) {
                    remote[i] = comm.handShake(mine[i]);
                }
                describe(mine, "local");
                describe(remote, "remote");
                out.println(PerftestReport.RESULT_LINE);
                out.flush();
                if (cmQps == null) {
                    res.connect(mine, remote, mtu, options, device.maxQpInitRdAtom());
                }
                PerftestTraffic traffic = new PerftestTraffic(res, options);
                // After the connect: each QP's record again, then one more (not send_lat, which syncs per size).
                for (PerftestAddress address : mine) {
                    comm.handShake(address);
                }
                if (test() != Test.SEND_LAT) {
                    comm.handShake(mine[0]);
                }
                if (test().latency()) {
                    latency(comm, mine[0], remote[0], traffic);
                } else {
                    bandwidth(comm, mine[0], remote, traffic);
                }
                out.println(PerftestDataCheck.note(options));
                out.flush();
                if (cmQps != null) {
                    cmQps.disconnect();
                }
                return 0;
            }
        } finally {
            tearDown();
        }
    }

    /** perftest's {@code establish_connection}: a TCP socket, or with {@code -R} an rdma_cm QP. */
    private PerftestHandshake openExchange(Arena arena) throws PingpongFailure {
        if (options.rdmaCm()) {
            return client() ? PerftestCmLink.connect(cm, options.host(), options.port(), options.gidIndex(), arena)
                    : PerftestCmLink.accept(cm, options.port(), listening, options.gidIndex(), arena);
        }
        return client() ? PerftestHandshake.connect(options.host(), options.port())
                : PerftestHandshake.accept(options.port(), listening);
    }

    /**
     * {@code create_rdma_cm_connection} up to the QPs: a sync record of zeros, then the client's ids
     * resolved or the server's CONNECT_REQUESTs taken. Our server listens before it answers the sync
     * (perftest listens after): nothing shows on the wire, and our client's REQ cannot find the port
     * closed. Against perftest's server it can: our client, as perftest's, then tries the connection
     * again, up to ten times ({@link PerftestCmConnection}).
     */
    private PerftestCmConnection connectWithRdmaCm(PerftestHandshake comm) throws PingpongFailure {
        if (client()) {
            comm.syncBeforeSetUp();
            return PerftestCmConnection.resolve(cm, options, steps);
        }
        return PerftestCmConnection.listen(cm, options, steps, () -> comm.syncBeforeSetUp());
    }

    private int sendDepth() {
        return test().latency() ? 1 : options.txDepth();
    }

    private void latency(PerftestHandshake comm, PerftestAddress mine, PerftestAddress remote, PerftestTraffic traffic)
            throws PingpongFailure {
        boolean measuring = client() || test().bothSidesSend();
        int rttFactor = test().verb() == Verb.READ || test().verb() == Verb.ATOMIC ? 1 : 2;
        if (options.duration() > 0) {
            latencyFor(comm, mine, remote, traffic, measuring, rttFactor);
            return;
        }
        if (measuring) {
            out.println(PerftestReport.LAT_HEADER);
            out.flush();
        }
        for (long size : options.sizes()) {
            long[] posted;
            switch (test().verb()) {
                case WRITE -> posted = traffic.writePingpong((int) size, remote);
                case SEND -> {
                    // send_lat posts the receives for each size, then syncs so that no SEND finds none.
                    traffic.postReceives((int) size);
                    comm.handShake(mine);
                    posted = traffic.sendPingpong((int) size);
                }
                default -> posted = client() ? traffic.roundTrips((int) size, remote) : null;
            }
            if (posted != null) {
                out.println(PerftestReport.latencyRow(size, posted, rttFactor));
                out.flush();
            }
        }
        if (measuring) {
            out.println(PerftestReport.RESULT_LINE);
        }
        if (test().verb() != Verb.WRITE) {
            out.flush();
            comm.closeConnection(mine);
        }
    }

    /** {@code -D}: one size, the measuring side prints the duration row; write_lat lingers (below). */
    private void latencyFor(PerftestHandshake comm, PerftestAddress mine, PerftestAddress remote,
                            PerftestTraffic traffic, boolean measuring, int rttFactor) throws PingpongFailure {
        int size = (int) options.size();
        if (test().verb() == Verb.SEND) {
            traffic.postReceives(size);
            comm.handShake(mine);
        }
        if (measuring) {
            out.println(PerftestReport.LAT_DURATION_HEADER);
            out.flush();
            PerftestTraffic.Counted counted = traffic.latencyFor(size, remote, PerftestDuration.start(options.duration()));
            if (counted.iterations() == 0) {
                throw new PingpongFailure(" No iteration completed while sampling");
            }
            out.println(PerftestReport.latencyDurationRow(size, counted, rttFactor));
            out.println(PerftestReport.RESULT_LINE);
            out.flush();
        }
        if (test().verb() == Verb.WRITE) {
            // write_lat ends without a word: keep the QP a moment so that the peer's last WRITE,
            // posted just before its own clock ran out, still gets its ACK.
            try {
                Thread.sleep(LINGER_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        comm.closeConnection(mine);
    }

    private void bandwidth(PerftestHandshake comm, PerftestAddress mine, PerftestAddress[] remote,
                           PerftestTraffic traffic) throws PingpongFailure {
        long size = options.size();
        if (options.duration() > 0) {
            bandwidthFor(comm, mine, remote, traffic);
            return;
        }
        if (test().verb() == Verb.SEND) {
            // send_bw: per size, the server posts its receives, a sync, the run, each side's own row;
            // with -a one more sync after each size (send_bw -a between two C tools).
            out.println(PerftestReport.BW_HEADER);
            for (long each : options.sizes()) {
                if (!client()) {
                    traffic.postReceives((int) each);
                }
                comm.handShake(mine);
                PerftestHandshake.BwReport report = client() ? traffic.bandwidth((int) each, remote)
                        : traffic.receiveAll((int) each);
                out.println(PerftestReport.bandwidthRow(report));
                out.flush();
                if (options.allSizes()) {
                    comm.handShake(mine);
                }
            }
            out.println(PerftestReport.RESULT_LINE);
            out.flush();
            comm.closeConnection(mine);
            return;
        }
        // With -a the client runs every size back to back (a row each); only the last size's report
        // goes to the server, which prints that one row (write_bw -a between two C tools).
        PerftestHandshake.BwReport report = PerftestHandshake.BwReport.NONE;
        if (client()) {
            out.println(PerftestReport.BW_HEADER);
            for (long each : options.sizes()) {
                report = traffic.bandwidth((int) each, remote);
                out.println(PerftestReport.bandwidthRow(report));
                out.flush();
            }
            out.println(PerftestReport.RESULT_LINE);
        }
        comm.handShake(mine);
        PerftestHandshake.BwReport theirs = comm.exchangeBwReport(report);
        if (!client()) {
            printBandwidth(theirs);
        }
        comm.closeConnection(mine);
    }

    /** {@code -D} bandwidth: the same script, the numbers of the sample (peak 0.00). */
    private void bandwidthFor(PerftestHandshake comm, PerftestAddress mine, PerftestAddress[] remote,
                              PerftestTraffic traffic) throws PingpongFailure {
        int size = (int) options.size();
        if (test().verb() == Verb.SEND) {
            if (!client()) {
                traffic.postReceives(size);
            }
            comm.handShake(mine);
        }
        PerftestHandshake.BwReport report = PerftestHandshake.BwReport.NONE;
        if (client()) {
            report = PerftestReport.bandwidth(size,
                    traffic.bandwidthFor(size, remote, PerftestDuration.start(options.duration())));
        } else if (test().verb() == Verb.SEND) {
            report = PerftestReport.bandwidth(size, traffic.receiveFor(size, PerftestDuration.start(options.duration())));
        }
        if (test().verb() == Verb.SEND) {
            printBandwidth(report);
        } else {
            if (client()) {
                printBandwidth(report);
            }
            comm.handShake(mine);
            PerftestHandshake.BwReport theirs = comm.exchangeBwReport(report);
            if (!client()) {
                printBandwidth(theirs);
            }
        }
        comm.closeConnection(mine);
    }

    private void printBandwidth(PerftestHandshake.BwReport report) {
        out.println(PerftestReport.BW_HEADER);
        out.println(PerftestReport.bandwidthRow(report));
        out.println(PerftestReport.RESULT_LINE);
        out.flush();
    }

    private void describe(PerftestAddress[] addresses, String side) {
        boolean memory = test().verb() == Verb.WRITE || test().verb() == Verb.READ;
        for (PerftestAddress address : addresses) {
            out.println(address.describe(side, test().verb() == Verb.READ, memory));
        }
    }

    /** ctx_print_test_info, with the lines that mean something for roce4j. */
    private void printInfo(DeviceSelector.Selection selection, Mtu mtu, int outReads) {
        out.println(PerftestReport.RESULT_LINE);
        out.println("                    " + test().title(options.atomic()));
        out.println(" Dual-port       : OFF\t\tDevice         : " + selection.device().name());
        out.println(" Number of qps   : " + options.qps() + "\t\tTransport type : IB");
        out.println(" Connection type : RC\t\tUsing SRQ      : OFF");
        if (test().verb() == Verb.SEND && !client()) {
            out.println(" RX depth        : " + PerftestTraffic.recvDepth(options));
        } else if (client() || test().bothSidesSend()) {
            out.println(" TX depth        : " + (test().latency() ? 1 : Math.min(options.txDepth(), options.iters())));
        }
        if (!test().latency()) {
            out.println(" CQ Moderation   : " + Math.min(CQ_MODERATION, options.iters()));
        }
        out.println(" Mtu             : " + mtu.bytes() + "[B]");
        out.println(" Link type       : Ethernet");
        out.println(" GID index       : " + options.gidIndex());
        if (test().verb() == Verb.READ || test().verb() == Verb.ATOMIC) {
            out.println(" Outstand reads  : " + outReads);
        } else {
            out.println(" Max inline data : 0[B]");
        }
        out.println(" rdma_cm QPs\t : " + (options.rdmaCm() ? "ON" : "OFF"));
        if (options.rdmaCm() && !client()) {
            out.println(" Data ex. method : rdma_cm");
            out.println(PerftestReport.RESULT_LINE);
            out.println(" Waiting for client rdma_cm QP to connect");
            out.println(" Please run the same command with the IB/RoCE interface IP");
        } else {
            out.println(" Data ex. method : " + (options.rdmaCm() ? "rdma_cm" : "Ethernet"));
        }
        out.println(PerftestReport.RESULT_LINE);
        out.flush();
    }

    private void tearDown() {
        for (AutoCloseable resource = steps.nextToClose(); resource != null; resource = steps.nextToClose()) {
            try {
                resource.close();
            } catch (Exception e) {
                err.println("Failed to destroy resources: " + e.getMessage());
            }
        }
    }
}
