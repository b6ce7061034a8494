package org.roce4j.tools;

import static org.roce4j.tools.VerbsSteps.act;
import static org.roce4j.tools.VerbsSteps.step;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.function.IntConsumer;
import java.util.random.RandomGenerator;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.PortAttr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * One run of perftest's {@code ib_write_lat} or {@code ib_write_bw} (RC, one QP), against the
 * Verbs API alone, speaking perftest 6.06's TCP script ({@link PerftestHandshake}) so that either
 * side can be the C tool:
 * <ul>
 *   <li>both: version, cycle buffer, cache line, MTU; then write_lat one extra record exchange; the
 *       per-QP records; connect; the per-QP records again; one more exchange;</li>
 *   <li>write_lat: ping-pong of RDMA WRITEs, each side writing the iteration number into the last
 *       byte of the peer's buffer and polling the last byte of its own; no exchange after it;</li>
 *   <li>write_bw: the client posts WRITEs keeping up to tx-depth outstanding; the server only waits
 *       in the record exchange that ends the test; then the report exchange (the server prints the
 *       client's numbers) and {@code ctx_close_connection} (a record exchange and "done\0").</li>
 * </ul>
 */
final class Perftest {
    enum Test {
        WRITE_LAT("RDMA_Write Latency Test"), WRITE_BW("RDMA_Write BW Test");

        final String title;

        Test(String title) {
            this.title = title;
        }
    }

    record Options(Test test, String host, int port, String ibDev, int ibPort, int gidIndex, long size, int iters,
                   Mtu mtu, int txDepth) {
    }

    static final String RESULT_LINE = "-".repeat(87);
    static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
            + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    static final String BW_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    static final int CYCLE_BUFFER = 4096;
    static final int CACHE_LINE = 64;
    private static final double MEGA_BYTE = 0x100000;
    private static final long STALL_NANOS = 60_000_000_000L;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final DeviceSelector devices;
    private final IntConsumer listening;
    private final RandomGenerator random;
    private final VerbsSteps steps = new VerbsSteps();

    private Cq cq;
    private Qp qp;
    private Mr mr;
    private MemorySegment buffer;
    private long half;

    Perftest(Options options, PrintWriter out, PrintWriter err, DeviceSelector devices, IntConsumer listening,
             RandomGenerator random) {
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

    private boolean lat() {
        return options.test() == Test.WRITE_LAT;
    }

    /** Runs the test; returns the exit code (0, or 1 after printing why to stderr). */
    int run() {
        DeviceSelector.Selection selection;
        try {
            selection = devices.select(options.ibDev());
        } catch (DeviceSelector.NoSuchDevice e) {
            err.println(e.getMessage());
            return 1;
        } catch (RuntimeException e) {
            err.println("Couldn't open device " + options.ibDev() + ": " + e.getMessage());
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
            PortAttr port = step("Unable to query port info", () -> context.queryPort(options.ibPort()));
            Mtu mtu = options.mtu() != null ? options.mtu() : port.activeMtu();
            if (!client()) {
                out.println("\n************************************\n* Waiting for client to connect... *\n"
                        + "************************************");
                out.flush();
            }
            try (PerftestHandshake comm = client()
                    ? PerftestHandshake.connect(options.host(), options.port())
                    : PerftestHandshake.accept(options.port(), listening)) {
                comm.exchangeVersion(PerftestHandshake.VERSION);
                comm.exchangeMax(CYCLE_BUFFER);
                comm.exchangeMax(CACHE_LINE);
                mtu = comm.exchangeMtu(mtu);
                PerftestAddress mine = setUp(context, arena);
                printInfo(selection, mtu);
                if (lat()) {
                    comm.handShake(mine);
                }
                PerftestAddress remote = comm.handShake(mine);
                out.println(mine.describe("local"));
                out.println(remote.describe("remote"));
                out.println(RESULT_LINE);
                out.flush();
                connect(mine, remote, mtu);
                comm.handShake(mine);
                comm.handShake(mine);
                if (lat()) {
                    out.println(LAT_HEADER);
                    out.println(latencyRow(pingpong(remote)));
                    out.println(RESULT_LINE);
                    return 0;
                }
                PerftestHandshake.BwReport report = client() ? bandwidth(remote) : PerftestHandshake.BwReport.NONE;
                comm.handShake(mine);
                PerftestHandshake.BwReport theirs = comm.exchangeBwReport(report);
                out.println(BW_HEADER);
                out.println(bandwidthRow(client() ? report : theirs));
                out.println(RESULT_LINE);
                out.flush();
                comm.closeConnection(mine);
                return 0;
            }
        } finally {
            tearDown();
        }
    }

    private PerftestAddress setUp(Context context, Arena arena) throws PingpongFailure {
        long bytes = Math.max(options.size(), 1);
        // write_lat: the peer writes into the first half, we write from the second.
        half = ((bytes + CYCLE_BUFFER - 1) / CYCLE_BUFFER) * CYCLE_BUFFER;
        buffer = arena.allocate(lat() ? 2 * half : half, CYCLE_BUFFER);
        Pd pd = steps.open("Couldn't allocate PD", context::allocPd);
        mr = steps.open("Couldn't allocate MR", () -> pd.regMr(buffer,
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ)));
        cq = steps.open("Couldn't create CQ", () -> context.createCq(options.txDepth() + 1, null, 0));
        qp = steps.open("Couldn't create QP", () -> pd.createQp(new QpInitAttr(QpType.RC, cq, cq, null,
                new QpCap(options.txDepth(), 1, 1, 1, 0), false)));
        act("Failed to modify QP to INIT", () -> qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0)
                .portNum(options.ibPort()).qpAccessFlags(EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ))));
        Gid gid = step("Couldn't read sgid of index " + options.gidIndex(),
                () -> context.queryGid(options.ibPort(), options.gidIndex()));
        return new PerftestAddress(0, 1, qp.qpNum(), random.nextInt() & 0xFFFFFF, mr.rkey(), mr.address(), gid, 0);
    }

    private void printInfo(DeviceSelector.Selection selection, Mtu mtu) {
        out.println(RESULT_LINE);
        out.println("                    " + options.test().title);
        out.println(" Dual-port       : OFF\t\tDevice         : " + selection.device().name());
        out.println(" Number of qps   : 1\t\tTransport type : IB");
        out.println(" Connection type : RC\t\tUsing SRQ      : OFF");
        out.println(" TX depth        : " + options.txDepth());
        out.println(" Mtu             : " + mtu.bytes() + "[B]");
        out.println(" Link type       : Ethernet");
        out.println(" GID index       : " + options.gidIndex());
        out.println(" Max inline data : 0[B]");
        out.println(" rdma_cm QPs\t : OFF");
        out.println(" Data ex. method : Ethernet");
        out.println(RESULT_LINE);
        out.flush();
    }

    private void connect(PerftestAddress mine, PerftestAddress remote, Mtu mtu) throws PingpongFailure {
        AhAttr path = new AhAttr(remote.gid(), options.gidIndex(), 0, 0xFF, 0, 0, options.ibPort());
        act("Failed to modify QP to RTR", () -> qp.modify(new QpAttr().qpState(QpState.RTR).pathMtu(mtu)
                .destQpNum(remote.qpn()).rqPsn(remote.psn()).ahAttr(path).maxDestRdAtomic(1).minRnrTimer(12)));
        act("Failed to modify QP to RTS", () -> qp.modify(new QpAttr().qpState(QpState.RTS).sqPsn(mine.psn())
                .timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1)));
    }

    /** write_lat's run_iter_lat_write; returns the post times (ns) of the iterations. */
    private long[] pingpong(PerftestAddress remote) throws PingpongFailure {
        int size = (int) options.size();
        long pollAt = size - 1;
        long postAt = half + size - 1;
        SendWr write = SendWr.rdmaWrite(1, mr, half, size, remote.vaddr(), remote.rkey()).signaled(true);
        long[] posted = new long[options.iters()];
        int scnt = 0;
        int rcnt = 0;
        int outstanding = 0;
        while (scnt < options.iters() || rcnt < options.iters()) {
            if (rcnt < options.iters() && !(scnt < 1 && client())) {
                rcnt++;
                long since = System.nanoTime();
                while ((byte) BYTE.getVolatile(buffer, pollAt) != (byte) rcnt) {
                    if (System.nanoTime() - since > STALL_NANOS || Thread.currentThread().isInterrupted()) {
                        throw new PingpongFailure("Couldn't get the peer's write number " + rcnt);
                    }
                    Thread.onSpinWait();
                }
            }
            if (scnt < options.iters()) {
                posted[scnt] = System.nanoTime();
                BYTE.setVolatile(buffer, postAt, (byte) ++scnt);
                while (outstanding >= options.txDepth()) {
                    outstanding -= drain();
                }
                act("Couldn't post send: scnt=" + scnt, () -> qp.postSend(write));
                outstanding++;
            }
            outstanding -= drain();
        }
        long since = System.nanoTime();
        while (outstanding > 0) {
            outstanding -= drain();
            if (System.nanoTime() - since > STALL_NANOS) {
                throw new PingpongFailure("Couldn't poll the last completions");
            }
        }
        return posted;
    }

    private final WorkCompletion[] wc = new WorkCompletion[16];

    private int drain() throws PingpongFailure {
        int n = cq.poll(wc);
        for (int i = 0; i < n; i++) {
            if (wc[i].status() != WcStatus.SUCCESS) {
                throw new PingpongFailure(String.format(" Completion with error at %s:%n Failed status %d: wr_id %d",
                        client() ? "client" : "server", wc[i].status().value(), (int) wc[i].wrId()));
            }
        }
        return n;
    }

    /** write_bw's client side (run_iter_bw): WRITEs with up to tx-depth outstanding, every one signaled. */
    private PerftestHandshake.BwReport bandwidth(PerftestAddress remote) throws PingpongFailure {
        int iters = options.iters();
        int size = (int) options.size();
        SendWr write = SendWr.rdmaWrite(1, mr, 0, size, remote.vaddr(), remote.rkey()).signaled(true);
        long[] posted = new long[iters];
        long[] completed = new long[iters];
        int scnt = 0;
        int ccnt = 0;
        long last = System.nanoTime();
        while (ccnt < iters) {
            while (scnt < iters && scnt - ccnt < options.txDepth()) {
                posted[scnt] = System.nanoTime();
                int number = scnt + 1;
                act("Couldn't post send: scnt=" + number, () -> qp.postSend(write));
                scnt++;
            }
            int n = drain();
            long now = System.nanoTime();
            for (int i = 0; i < n; i++) {
                completed[ccnt++] = now;
            }
            if (n > 0) {
                last = now;
            } else if (now - last > STALL_NANOS || Thread.currentThread().isInterrupted()) {
                throw new PingpongFailure("Couldn't poll a completion: scnt=" + scnt + " ccnt=" + ccnt);
            }
        }
        return bwReport(size, posted, completed);
    }

    /**
     * The numbers of perftest's print_report_bw: average over the whole run, peak from the best
     * (completed[j] - posted[i]) / (j - i + 1), MB = 2^20 bytes, message rate in millions a second.
     */
    static PerftestHandshake.BwReport bwReport(long size, long[] posted, long[] completed) {
        int n = posted.length;
        double total = (completed[n - 1] - posted[0]) / 1e9;
        double best = Double.MAX_VALUE;
        int step = Math.max(1, n / 2000); // bounded O(n^2) for long runs
        for (int i = 0; i < n; i += step) {
            for (int j = i; j < n; j++) {
                best = Math.min(best, (completed[j] - posted[i]) / 1e9 / (j - i + 1));
            }
        }
        double average = size * n / total / MEGA_BYTE;
        double peak = best > 0 ? size / best / MEGA_BYTE : average;
        return new PerftestHandshake.BwReport(size, n, peak, average, n / total / 1e6);
    }

    static String bandwidthRow(PerftestHandshake.BwReport r) {
        return String.format(Locale.ROOT, " %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f", r.size(), r.iters(),
                r.bwPeak(), r.bwAverage(), r.msgRate());
    }

    /** print_report_lat for WRITE: half of each interval between consecutive posts, sorted. */
    String latencyRow(long[] posted) {
        return latencyRow(options.size(), posted);
    }

    static String latencyRow(long size, long[] posted) {
        int n = posted.length - 1;
        double[] delta = new double[n];
        for (int i = 0; i < n; i++) {
            delta[i] = (posted[i + 1] - posted[i]) / 1000.0 / 2;
        }
        Arrays.sort(delta);
        double sum = 0;
        for (double d : delta) {
            sum += d;
        }
        double average = sum / n;
        double squares = 0;
        for (double d : delta) {
            squares += (d - average) * (d - average);
        }
        double stdev = Math.sqrt(squares / n);
        return String.format(Locale.ROOT, " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f"
                        + "\t\t%-7.2f \t\t%-7.2f", size, posted.length, delta[0], delta[n - 1], delta[n / 2], average, stdev,
                delta[percentile(n, 0.99)], delta[percentile(n, 0.999)]);
    }

    private static int percentile(int n, double p) {
        return Math.min(n - 1, Math.max(0, (int) Math.ceil(n * p) - 1));
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
