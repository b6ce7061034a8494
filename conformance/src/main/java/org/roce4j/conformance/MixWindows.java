package org.roce4j.conformance;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * The type 2 memory windows of one {@link WorkRequestMixProperties} scenario: each bound by a BIND_MW of B's
 * QP over exactly the remote slice of the operation that goes through it, all before the mix is posted (their
 * completions are the model's: BIND_MW, SUCCESS, in order); a SEND_WITH_INV of the mix frees the newest window
 * of an earlier WRITE or atomic still bound (READ windows are left to LOCAL_INV: a READ's response may still be
 * read out of the region after later requests arrive), or one bound for it alone. After the mix, B frees every
 * window still bound with LOCAL_INV (each completes LOCAL_INV, SUCCESS), and one WRITE through a freed window —
 * the one a SEND_WITH_INV freed, when there is one — completes REM_ACCESS_ERR and changes no byte of B
 * (IBTA 9.4.4, 10.6.5, 10.6.7.2.4).
 */
final class MixWindows {
    private static final long BIND_WR_ID = 0xB1D0_0000L;
    private static final long INVALIDATE_WR_ID = 0x1A70_0000L;
    private static final long PROBE_WR_ID = 0x9B0BEL;

    private final Endpoint a;
    private final Endpoint b;
    private final QpPair pair;
    private final ReferenceModel model;
    private final List<SendWr> binds = new ArrayList<>();
    private final List<Integer> keys = new ArrayList<>();
    private final List<Long> addresses = new ArrayList<>();
    /** Windows a SEND_WITH_INV may free: those of WRITEs and atomics. */
    private final List<Boolean> freeableBySend = new ArrayList<>();
    private int freedBySend = -1;

    MixWindows(Endpoint a, Endpoint b, QpPair pair, ReferenceModel model) {
        this.a = a;
        this.b = b;
        this.pair = pair;
        this.model = model;
    }

    /** A window over [{@code address}, +{@code length}) of {@code region} for one operation; {@return its rkey} */
    int bind(Mr region, long address, int length, boolean read) {
        Mw mw = b.track(b.pd.allocMw(MwType.TYPE_2));
        int rkey = Mw.incRkey(mw.rkey());
        binds.add(SendWr.bindMw(BIND_WR_ID + binds.size(), mw, rkey,
                new MwBindInfo(region, address, length, WorkRequestMixProperties.REMOTE_RIGHTS)));
        model.bindWindow();
        keys.add(rkey);
        addresses.add(address);
        freeableBySend.add(!read);
        return rkey;
    }

    /** The rkey a SEND_WITH_INV frees: see the class comment. */
    int invalidateBySend(Mr region) {
        int window = -1;
        for (int w = keys.size() - 1; w >= 0 && window < 0; w--) {
            if (freeableBySend.get(w) && model.windowBound(w)) {
                window = w;
            }
        }
        if (window < 0) {
            bind(region, region.address(), 1, false);
            window = keys.size() - 1;
        }
        model.invalidateWindow(window);
        freedBySend = window;
        return keys.get(window);
    }

    /** Posts the binds at B and checks their completions. */
    void awaitBinds() {
        if (binds.isEmpty()) {
            return;
        }
        pair.qpB.postSend(binds);
        List<WorkCompletion> done = Completions.await(b.cq, binds.size());
        for (int i = 0; i < done.size(); i++) {
            expect("BIND_MW of window " + i, done.get(i), BIND_WR_ID + i, WcOpcode.BIND_MW, WcStatus.SUCCESS);
        }
    }

    /** After the mix: LOCAL_INV of every window still bound, then one WRITE through a freed window (see the class comment). */
    void invalidateTheRestAndProbe(MemorySegment[] responderMemory, Mr source) {
        if (keys.isEmpty()) {
            return;
        }
        List<SendWr> invalidations = new ArrayList<>();
        for (int w = 0; w < keys.size(); w++) {
            if (model.windowBound(w)) {
                invalidations.add(SendWr.localInv(INVALIDATE_WR_ID + w, keys.get(w)));
                model.invalidateWindow(w);
            }
        }
        if (!invalidations.isEmpty()) {
            pair.qpB.postSend(invalidations);
            List<WorkCompletion> done = Completions.await(b.cq, invalidations.size());
            for (int i = 0; i < done.size(); i++) {
                SendWr wr = invalidations.get(i);
                expect("LOCAL_INV of rkey 0x" + Integer.toHexString(wr.invalidateRkey()), done.get(i), wr.wrId(),
                        WcOpcode.LOCAL_INV, WcStatus.SUCCESS);
            }
        }
        int probed = freedBySend >= 0 ? freedBySend : 0;
        byte[][] before = Arrays.stream(responderMemory).map(m -> m.toArray(ValueLayout.JAVA_BYTE)).toArray(byte[][]::new);
        pair.qpA.postSend(SendWr.rdmaWrite(PROBE_WR_ID, source, 0, 1, addresses.get(probed), keys.get(probed)));
        expect("a WRITE through window " + probed + " after it was freed" + (probed == freedBySend ? " by SEND_WITH_INV" : ""),
                Completions.awaitOne(a.cq), PROBE_WR_ID, WcOpcode.RDMA_WRITE, WcStatus.REM_ACCESS_ERR);
        for (int r = 0; r < responderMemory.length; r++) {
            if (!Arrays.equals(before[r], responderMemory[r].toArray(ValueLayout.JAVA_BYTE))) {
                throw new AssertionError("a WRITE through freed window " + probed + " changed B's region " + r);
            }
        }
    }

    private static void expect(String what, WorkCompletion wc, long wrId, WcOpcode opcode, WcStatus status) {
        if (wc.wrId() != wrId || wc.status() != status || status == WcStatus.SUCCESS && wc.opcode() != opcode) {
            throw new AssertionError(what + ": expected wr_id 0x" + Long.toHexString(wrId) + " " + opcode + " " + status
                    + ", got " + wc);
        }
    }
}
