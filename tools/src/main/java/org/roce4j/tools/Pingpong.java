package org.roce4j.tools;

import static org.roce4j.tools.VerbsSteps.act;
import static org.roce4j.tools.VerbsSteps.step;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntConsumer;
import java.util.random.RandomGenerator;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.PortAttr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqInitAttr;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * One run of {@code ibv_rc_pingpong}, {@code ibv_uc_pingpong}, {@code ibv_ud_pingpong} or
 * {@code ibv_srq_pingpong}, written against the Verbs API alone and step for step as the rdma-core
 * examples (libibverbs/examples/*_pingpong.c) do it: the same resources and attributes, the same
 * TCP handshake ({@link PingpongHandshake}), the same completion loop, the same lines on stdout
 * and the same error lines on stderr.
 *
 * <p>The server (no host) and the client (a host) each post {@code rx_depth} receives; the client
 * sends first; each side sends again once its previous send and a receive have completed, until
 * both have sent and received {@code iters} messages ({@code iters} in all, not per QP, for srq —
 * the C tool counts that way whatever its help says).
 */
final class Pingpong {
    enum Service { RC, UC, UD, SRQ }

    /**
     * The command-line options, as the C tools name them, and one that is roce4j's alone and for
     * tests only: {@code corruptPayloadForTest} spoils every message this side sends.
     */
    record Options(Service service, String host, int port, String ibDev, int ibPort, int size, Mtu mtu,
                   int rxDepth, int iters, int sl, boolean events, int gidIndex, boolean check, int numQp,
                   boolean corruptPayloadForTest) {
    }

    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    /** ibv_srq_pingpong's MAX_QP: it always exchanges this many address records. */
    static final int MAX_QP = 256;
    /** UD receive buffers start with the 40-byte GRH (IBTA 11.4.1.2). */
    static final int GRH_BYTES = 40;
    static final int UD_QKEY = 0x11111111;
    /** sysconf(_SC_PAGESIZE) on the machines the examples run on; -c checks the first byte of each page. */
    static final int PAGE_SIZE = 4096;
    private static final Duration EVENT_WAIT = Duration.ofMillis(100);

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final DeviceSelector devices;
    private final IntConsumer listening;
    private final RandomGenerator random;

    private final VerbsSteps steps = new VerbsSteps();
    private final List<Qp> qps = new ArrayList<>();
    private Context context;
    private CompChannel channel;
    private Pd pd;
    private Mr mr;
    private Cq cq;
    private Srq srq;
    private Ah ah;
    private MemorySegment buffer;
    private PingpongPayload payload;
    private boolean inline;
    private int numCqEvents;

    Pingpong(Options options, PrintWriter out, PrintWriter err, DeviceSelector devices, IntConsumer listening,
             RandomGenerator random) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.devices = devices;
        this.listening = listening;
        this.random = random;
    }

    /** Runs the pingpong; returns the exit code (0, or 1 after printing why to stderr). */
    int run() {
        if (options.service() == Service.SRQ) {
            if (options.numQp() > options.rxDepth()) {
                err.printf("rx_depth %d is too small for %d QPs -- must have at least one receive per QP.%n",
                        options.rxDepth(), options.numQp());
                return 1;
            }
            if (options.numQp() >= MAX_QP) {
                err.printf("num_qp %d must be less than %d%n", options.numQp(), MAX_QP - 1);
                return 1;
            }
        }
        DeviceSelector.Selection selection = devices.selectOrReport(options.ibDev(), err);
        if (selection == null) {
            return 1;
        }
        int exit;
        try (Arena arena = Arena.ofShared()) {
            exit = run(selection, arena);
        }
        try {
            selection.close();
        } catch (Exception e) {
            err.println("Couldn't close device " + selection.device().name() + ": " + e.getMessage());
            exit = 1;
        }
        return exit;
    }

    private int run(DeviceSelector.Selection selection, Arena arena) {
        try {
            try {
                setUp(selection, arena);
                return pingpong();
            } finally {
                tearDown();
            }
        } catch (PingpongFailure e) {
            out.flush();
            err.println(e.getMessage());
            return 1;
        }
    }

    private boolean srq() {
        return options.service() == Service.SRQ;
    }

    private boolean ud() {
        return options.service() == Service.UD;
    }

    private boolean client() {
        return options.host() != null;
    }

    /** The QP-numbered message of srq ("Couldn't create QP[3]") or the plain one of the others. */
    private String perQp(String message, int index) {
        return srq() ? message.replace("QP", "QP[" + index + "]") : message;
    }

    // pp_init_ctx
    private void setUp(DeviceSelector.Selection selection, Arena arena) throws PingpongFailure {
        int bufferSize = ud() ? options.size() + GRH_BYTES : options.size();
        buffer = arena.allocate(Math.max(1, bufferSize), PAGE_SIZE).asSlice(0, bufferSize);
        // ibv_srq_pingpong clears its buffer; the others fill it with 0x7b ("FIXME memset(ctx->buf, 0, size)").
        payload = new PingpongPayload(options.service(), options.size(), dataOffset());
        payload.fill(buffer);

        context = steps.open("Couldn't get context for " + selection.device().name(), () -> selection.device().open());
        if (ud()) {
            PortAttr port = step("Unable to query port info for port " + options.ibPort(),
                    () -> context.queryPort(options.ibPort()));
            int mtu = port.activeMtu().bytes();
            if (options.size() > mtu) {
                throw new PingpongFailure("Requested size larger than port MTU (" + mtu + ")");
            }
        }
        if (options.events()) {
            channel = steps.open("Couldn't create completion channel", () -> context.createCompChannel());
        }
        pd = steps.open("Couldn't allocate PD", () -> context.allocPd());
        mr = steps.open("Couldn't register MR", () -> pd.regMr(buffer, EnumSet.of(AccessFlag.LOCAL_WRITE)));
        int numQp = srq() ? options.numQp() : 1;
        int cqe = options.rxDepth() + numQp;
        cq = steps.open("Couldn't create CQ", () -> context.createCq(cqe, channel, 0));
        if (srq()) {
            srq = steps.open("Couldn't create SRQ", () -> pd.createSrq(new SrqInitAttr(options.rxDepth(), 1, 0)));
        }
        QpType type = switch (options.service()) {
            case RC, SRQ -> QpType.RC;
            case UC -> QpType.UC;
            case UD -> QpType.UD;
        };
        QpCap cap = srq() ? new QpCap(1, 0, 1, 0, 0) : new QpCap(1, options.rxDepth(), 1, 1, 0);
        inline = true;
        for (int i = 0; i < numQp; i++) {
            Qp qp = steps.open(perQp("Couldn't create QP", i), () -> pd.createQp(new QpInitAttr(type, cq, cq, srq, cap, false)));
            qps.add(qp);
            // The examples send inline when the QP can: max_inline_data >= size.
            inline &= qp.initAttr().cap().maxInlineData() >= options.size();
        }
        for (int i = 0; i < numQp; i++) {
            Qp qp = qps.get(i);
            act(perQp("Failed to modify QP to INIT", i), () -> bringUp().init(qp));
        }
    }

    private int pingpong() throws PingpongFailure {
        int routs = postRecv(options.rxDepth());
        if (routs < options.rxDepth()) {
            throw new PingpongFailure("Couldn't post receive (" + routs + ")");
        }
        if (options.events()) {
            act("Couldn't request CQ notification", () -> cq.reqNotify(false));
        }
        PortAttr port = step("Couldn't get port info", () -> context.queryPort(options.ibPort()));
        int lid = port.lid();
        if (!ud() && port.linkLayer() != PortAttr.LinkLayer.ETHERNET && lid == 0) {
            throw new PingpongFailure("Couldn't get local LID");
        }
        List<PingpongAddress> mine = new ArrayList<>();
        for (Qp qp : qps) {
            int psn = random.nextInt() & 0xFFFFFF;
            Gid gid = Gid.ZERO;
            if (options.gidIndex() >= 0) {
                gid = step(options.service() == Service.RC || options.service() == Service.UC
                                ? "can't read sgid of index " + options.gidIndex()
                                : "Could not get local gid for gid index " + options.gidIndex(),
                        () -> context.queryGid(options.ibPort(), options.gidIndex()));
            }
            PingpongAddress address = new PingpongAddress(lid, qp.qpNum(), psn, gid);
            mine.add(address);
            // ibv_ud_pingpong has a colon where the others have a comma.
            out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s%n", address.lid(), address.qpn(),
                    address.psn(), ud() ? ":" : ",", PingpongAddress.gidText(address.gid()));
        }
        out.flush();

        List<PingpongAddress> records = new ArrayList<>(mine);
        if (srq()) {
            records.addAll(Collections.nCopies(MAX_QP - mine.size(), PingpongAddress.UNUSED));
        }
        List<PingpongAddress> remote = client()
                ? PingpongHandshake.client(options.host(), options.port(), records)
                : PingpongHandshake.server(options.port(), records, r -> connect(mine, r), listening);
        for (int i = 0; i < qps.size(); i++) {
            PingpongAddress r = remote.get(i);
            out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", r.lid(), r.qpn(), r.psn(),
                    PingpongAddress.gidText(r.gid()));
        }
        out.flush();
        if (client()) {
            connect(mine, remote);
        }
        return exchange(routs, remote);
    }

    // pp_connect_ctx
    private void connect(List<PingpongAddress> mine, List<PingpongAddress> remote) throws PingpongFailure {
        QpBringUp bringUp = bringUp();
        if (ud()) {
            Qp qp = qps.getFirst();
            act("Failed to modify QP to RTR", () -> bringUp.readyToReceive(qp, null));
            act("Failed to modify QP to RTS", () -> bringUp.readyToSend(qp, mine.getFirst().psn()));
            AhAttr path = bringUp.path(globalGid(remote.getFirst().gid(), "Failed to create AH"));
            ah = steps.open("Failed to create AH", () -> pd.createAh(path));
            return;
        }
        for (int i = 0; i < qps.size(); i++) {
            Qp qp = qps.get(i);
            PingpongAddress dest = remote.get(i);
            // ibv_srq_pingpong decides on the GRH from the first record for every QP (dest->gid).
            Gid gid = globalGid(srq() ? remote.getFirst().gid() : dest.gid(), perQp("Failed to modify QP to RTR", i));
            act(perQp("Failed to modify QP to RTR", i),
                    () -> bringUp.readyToReceive(qp, new QpBringUp.Remote(dest.qpn(), dest.psn(), gid)));
            int psn = mine.get(i).psn();
            act(perQp("Failed to modify QP to RTS", i), () -> bringUp.readyToSend(qp, psn));
        }
    }

    /**
     * The examples' QP attributes: no remote rights, the UD Q_Key, and the address vector they build,
     * global (GRH, hop limit 1) with the SL of {@code -l}.
     */
    private QpBringUp bringUp() {
        return QpBringUp.pingpong().withPortNum(options.ibPort()).withSgidIndex(options.gidIndex()).withHopLimit(1)
                .withSl(options.sl()).withRemoteAccess(EnumSet.noneOf(AccessFlag.class)).withQkey(UD_QKEY)
                .withPathMtu(options.mtu());
    }

    /**
     * The examples build a global address vector only when the peer's GID has a non-zero interface
     * ID. RoCE has no LID routing, so on RoCE a peer without {@code -g} fails here, as
     * {@code ibv_modify_qp}/{@code ibv_create_ah} fail for the C tools.
     */
    private static Gid globalGid(Gid gid, String failure) throws PingpongFailure {
        if (gid.interfaceId() == 0) {
            throw new PingpongFailure(failure + "\n  (RoCE needs a GRH: run both sides with -g, e.g. -g 1)");
        }
        return gid;
    }

    private int exchange(int routsAtStart, List<PingpongAddress> remote) throws PingpongFailure {
        int routs = routsAtStart;
        int[] pending = new int[qps.size()];
        SendWr send = newSend(remote);
        if (client()) {
            if (options.check()) {
                payload.markPages(buffer);
            }
            for (int i = 0; i < qps.size(); i++) {
                postSend(send, i);
                pending[i] = RECV_WRID | SEND_WRID;
            }
        } else {
            java.util.Arrays.fill(pending, RECV_WRID);
        }
        int threshold = srq() ? qps.size() : 1;
        long start = System.nanoTime();
        int rcnt = 0;
        int scnt = 0;
        WorkCompletion[] wc = new WorkCompletion[srq() ? qps.size() + options.rxDepth() : 2];
        while (rcnt < options.iters() || scnt < options.iters()) {
            if (options.events()) {
                awaitEvent();
            }
            int ne;
            do {
                if (Thread.currentThread().isInterrupted()) {
                    throw new PingpongFailure("interrupted while polling the CQ");
                }
                try {
                    ne = cq.poll(wc);
                } catch (RuntimeException e) {
                    throw new PingpongFailure("poll CQ failed -1", e);
                }
                if (ne < 1 && !options.events()) {
                    Thread.onSpinWait();
                }
            } while (!options.events() && ne < 1);

            for (int i = 0; i < ne; i++) {
                WorkCompletion c = wc[i];
                if (c.status() != WcStatus.SUCCESS) {
                    throw new PingpongFailure(String.format("Failed status %s (%d) for wr_id %d", c.status().describe(),
                            c.status().value(), (int) c.wrId()) + parseFailed(ne));
                }
                int qpIndex = 0;
                if (srq()) {
                    qpIndex = findQp(c.qpNum());
                    if (qpIndex < 0) {
                        throw new PingpongFailure(String.format("Couldn't find QPN %06x", c.qpNum()));
                    }
                }
                switch ((int) c.wrId()) {
                    case SEND_WRID -> scnt++;
                    case RECV_WRID -> {
                        if (--routs <= threshold) {
                            routs += postRecv(options.rxDepth() - routs);
                            if (routs < options.rxDepth()) {
                                throw new PingpongFailure("Couldn't post receive (" + routs + ")" + parseFailed(ne));
                            }
                        }
                        rcnt++;
                        if (options.check()) {
                            payload.check(buffer);
                        }
                    }
                    default -> throw new PingpongFailure("Completion for unknown wr_id " + (int) c.wrId() + parseFailed(ne));
                }
                pending[qpIndex] &= ~(int) c.wrId();
                if (scnt < options.iters() && pending[qpIndex] == 0) {
                    postSend(send, qpIndex);
                    pending[qpIndex] = RECV_WRID | SEND_WRID;
                }
            }
        }
        long end = System.nanoTime();
        report((end - start) / 1000);
        if (options.check()) {
            return payload.report(out, err) ? 0 : 1;
        }
        return 0;
    }


    /** ibv_rc_pingpong's main loop adds this line after parse_single_wc fails; the others return at once. */
    private String parseFailed(int ne) {
        return options.service() == Service.RC ? "\nparse WC failed " + ne : "";
    }

    /** Where the message is in the buffer: after the GRH for UD. */
    private long dataOffset() {
        return ud() ? GRH_BYTES : 0;
    }

    private SendWr newSend(List<PingpongAddress> remote) {
        SendWr send = SendWr.send(SEND_WRID, mr, dataOffset(), options.size()).inline(inline);
        if (ud()) {
            send.ud(ah, remote.getFirst().qpn(), UD_QKEY);
        }
        return send;
    }

    private void postSend(SendWr send, int qpIndex) throws PingpongFailure {
        if (options.corruptPayloadForTest()) {
            payload.corrupt(buffer);
        }
        act("Couldn't post send", () -> qps.get(qpIndex).postSend(send));
    }

    /** pp_post_recv: posts up to n receives, returns how many went in. */
    private int postRecv(int n) {
        RecvWr wr = RecvWr.of(RECV_WRID, mr, 0, ud() ? options.size() + GRH_BYTES : options.size());
        for (int i = 0; i < n; i++) {
            try {
                if (srq()) {
                    srq.postRecv(wr);
                } else {
                    qps.getFirst().postRecv(wr);
                }
            } catch (RuntimeException e) {
                return i;
            }
        }
        return n;
    }

    private int findQp(int qpn) {
        for (int i = 0; i < qps.size(); i++) {
            if (qps.get(i).qpNum() == qpn) {
                return i;
            }
        }
        return -1;
    }

    private void awaitEvent() throws PingpongFailure {
        Optional<Cq> event;
        try {
            do {
                if (Thread.currentThread().isInterrupted()) {
                    throw new PingpongFailure("interrupted while waiting for a CQ event");
                }
                event = channel.getCqEvent(EVENT_WAIT); // ibv_get_cq_event blocks; so do we, in slices
            } while (event.isEmpty());
        } catch (RuntimeException e) {
            throw new PingpongFailure("Failed to get cq_event", e);
        }
        numCqEvents++;
        if (event.get() != cq) {
            throw new PingpongFailure("CQ event for unknown CQ " + event.get());
        }
        act("Couldn't request CQ notification", () -> cq.reqNotify(false));
    }

    /** The two result lines, computed as the C tools do (float microseconds from gettimeofday). */
    private void report(long micros) {
        float usec = micros;
        long bytes = (long) options.size() * options.iters() * 2;
        out.printf(Locale.ROOT, "%d bytes in %.2f seconds = %s Mbit/sec%n", bytes, usec / 1000000., fixed2(bytes * 8. / usec));
        out.printf(Locale.ROOT, "%d iters in %.2f seconds = %s usec/iter%n", options.iters(), usec / 1000000.,
                fixed2(usec / options.iters()));
        out.flush();
    }

    /** printf's %.2f, including glibc's spelling of the infinities and NaN (a run of 0 µs or 0 iters). */
    static String fixed2(double value) {
        if (Double.isNaN(value)) {
            return "-nan";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    // pp_close_ctx: everything in the reverse order of creation (QPs, SRQ, CQ, MR, AH, PD, channel, context).
    private void tearDown() throws PingpongFailure {
        if (cq != null && numCqEvents > 0) {
            cq.channel().ackCqEvents(cq, numCqEvents);
        }
        String failure = null;
        for (AutoCloseable resource = steps.nextToClose(); resource != null; resource = steps.nextToClose()) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = closeFailure(resource) + "\n  (" + e.getMessage() + ")";
                }
            }
        }
        if (failure != null) {
            throw new PingpongFailure(failure);
        }
    }

    private static String closeFailure(AutoCloseable resource) {
        return switch (resource) {
            case Qp q -> "Couldn't destroy QP";
            case Srq s -> "Couldn't destroy SRQ";
            case Cq c -> "Couldn't destroy CQ";
            case Mr m -> "Couldn't deregister MR";
            case Ah a -> "Couldn't destroy AH";
            case Pd p -> "Couldn't deallocate PD";
            case CompChannel c -> "Couldn't destroy completion channel";
            default -> "Couldn't release context";
        };
    }
}
