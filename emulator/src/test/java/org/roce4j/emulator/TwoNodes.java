package org.roce4j.emulator;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Consumer;

import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpBringUp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.WorkCompletion;
import org.roce4j.wire.MacAddress;

/** Two emulated nodes on a deterministic fabric, with a context, PD, CQ and 1 MiB registered region each. */
public final class TwoNodes implements AutoCloseable {
    /** The emulator tests' bring-up: ibv_rc_pingpong's values, 16 READs/atomics outstanding each way. */
    static final QpBringUp BRING_UP = QpBringUp.pingpong().withRdAtomic(16, 16);

    static final EnumSet<AccessFlag> ALL_ACCESS = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE,
            AccessFlag.REMOTE_READ, AccessFlag.REMOTE_ATOMIC);

    final Fabric fabric;
    final SoftRnic rnicA;
    final SoftRnic rnicB;
    final Arena arena = Arena.ofShared();
    final Side a;
    final Side b;

    TwoNodes() {
        this(Fabric.deterministic());
    }

    TwoNodes(Fabric fabric) {
        this(fabric, DeviceProfile.LINUX);
    }

    /** @param profile whose rules both devices follow where devices differ (see {@link DeviceProfile}) */
    TwoNodes(Fabric fabric, DeviceProfile profile) {
        this(fabric, profile.model(), profile.model());
    }

    /** Two devices that model different things: A, the requester of most tests, and B. */
    TwoNodes(Fabric fabric, DeviceModel deviceA, DeviceModel deviceB) {
        this.fabric = fabric;
        rnicA = node("rxe0", "02:00:00:00:00:01", "10.0.0.1", deviceA);
        rnicB = node("rxe1", "02:00:00:00:00:02", "10.0.0.2", deviceB);
        a = new Side(rnicA, arena, 256, 1 << 20);
        b = new Side(rnicB, arena, 256, 1 << 20);
    }

    /** The fabric's time, virtual on the deterministic fabric. */
    long now() {
        return fabric.clock().nanoTime();
    }

    /** One node's verbs objects: a context, a PD, a CQ and a page-aligned region registered with every access. */
    static final class Side {
        final SoftRnic rnic;
        final Context context;
        final Pd pd;
        final Cq cq;
        final MemorySegment memory;
        final Mr mr;

        Side(SoftRnic rnic, Arena arena, int cqDepth, long regionBytes) {
            this.rnic = rnic;
            context = rnic.device().open();
            pd = context.allocPd();
            cq = context.createCq(cqDepth);
            memory = arena.allocate(regionBytes, 4096);
            mr = pd.regMr(memory, ALL_ACCESS);
        }

        Qp createQp(QpType type, int depth) {
            return pd.createQp(QpInitAttr.of(type, cq, new QpCap(depth, depth, 4, 4, 64)));
        }

        Gid gid() {
            return context.queryGid(1, 1);
        }

        List<WorkCompletion> pollAll() {
            List<WorkCompletion> all = new ArrayList<>();
            List<WorkCompletion> some;
            while (!(some = cq.poll(64)).isEmpty()) {
                all.addAll(some);
            }
            return all;
        }
    }

    private SoftRnic node(String name, String mac, String ip, DeviceModel profile) {
        try {
            return SoftRnic.builder(fabric).name(name).mac(MacAddress.parse(mac))
                    .ipv4((Inet4Address) InetAddress.getByName(ip))
                    .profile(profile).attach();
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** Brings a QP to RTS against a peer, as ibv_rc_pingpong does. */
    static void connect(Qp qp, int remoteQpn, Gid remoteGid, int localPsn, int remotePsn, Mtu mtu) {
        connect(qp, remoteQpn, remoteGid, localPsn, remotePsn, mtu, 7);
    }

    static void connect(Qp qp, int remoteQpn, Gid remoteGid, int localPsn, int remotePsn, Mtu mtu, int rnrRetry) {
        connect(qp, remoteQpn, remoteGid, localPsn, remotePsn, mtu, rtr -> { }, rts -> rts.rnrRetry(rnrRetry));
    }

    /**
     * As above, with changes to an RC QP's RTR and RTS attributes (timeout, retry_cnt, max_rd_atomic, …).
     * Public for the UDP tests' {@code UdpSide}.
     */
    public static void connect(Qp qp, int remoteQpn, Gid remoteGid, int localPsn, int remotePsn, Mtu mtu,
                               Consumer<QpAttr> rtrChanges, Consumer<QpAttr> rtsChanges) {
        QpBringUp bringUp = BRING_UP.withPathMtu(mtu);
        if (qp.type() == QpType.UD) {
            bringUp.activate(qp, localPsn);
            return;
        }
        QpBringUp.Remote remote = new QpBringUp.Remote(remoteQpn, remotePsn, remoteGid);
        QpAttr rtr = bringUp.attributes(qp.type(), QpState.INIT, QpState.RTR, remote, localPsn);
        QpAttr rts = bringUp.attributes(qp.type(), QpState.RTR, QpState.RTS, remote, localPsn);
        if (qp.type() == QpType.RC) {
            rtrChanges.accept(rtr);
            rtsChanges.accept(rts);
        }
        bringUp.init(qp);
        qp.modify(rtr);
        qp.modify(rts);
    }

    /** Two RC QPs connected A (PSN 100) ↔ B (PSN 200), each side's attributes changed as given. */
    Qp[] rcPair(Mtu mtu, Consumer<QpAttr> rtrA, Consumer<QpAttr> rtsA, Consumer<QpAttr> rtrB, Consumer<QpAttr> rtsB) {
        Qp qa = a.createQp(QpType.RC, 64);
        Qp qb = b.createQp(QpType.RC, 64);
        connect(qa, qb.qpNum(), b.gid(), 100, 200, mtu, rtrA, rtsA);
        connect(qb, qa.qpNum(), a.gid(), 200, 100, mtu, rtrB, rtsB);
        return new Qp[] {qa, qb};
    }

    /** Two QPs of a type, connected to each other (UD: only brought to RTS). */
    Qp[] connectedPair(QpType type, Mtu mtu) {
        Qp qa = a.createQp(type, 16);
        Qp qb = b.createQp(type, 16);
        connect(qa, qb.qpNum(), b.gid(), 100, 200, mtu);
        connect(qb, qa.qpNum(), a.gid(), 200, 100, mtu);
        return new Qp[] {qa, qb};
    }

    @Override
    public void close() {
        fabric.close();
        arena.close();
    }
}
