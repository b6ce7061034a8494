package org.roce4j.emulator.transport;

import org.roce4j.wire.Psn;

/**
 * The READ/atomic resources a responder keeps, rxe's {@code qp->resp.resources[]}: one per
 * {@code max_dest_rd_atomic}, reused in turn ({@code rxe_prepare_res}), found again by PSN when a
 * duplicate request arrives ({@code rxe_resp.c: find_resource}).
 */
final class ReadAtomicResources {
    private ReadAtomicResource[] resources = new ReadAtomicResource[0];
    private int next;

    /** {@code max_dest_rd_atomic} changed (modify QP): the saved ones are forgotten. */
    void resize(int count) {
        if (count != resources.length) {
            resources = new ReadAtomicResource[count];
            next = 0;
        }
    }

    /** Every saved one forgotten (the QP was reset). */
    void clear() {
        for (ReadAtomicResource r : resources) {
            if (r != null) {
                r.used = false;
            }
        }
    }

    /** The next one in turn, marked used; the oldest is overwritten (rxe {@code rxe_prepare_res}). */
    ReadAtomicResource next() {
        if (resources.length == 0) {
            resources = new ReadAtomicResource[1];
        }
        int index = next;
        next = (next + 1) % resources.length;
        ReadAtomicResource res = resources[index];
        if (res == null) {
            res = new ReadAtomicResource();
            resources[index] = res;
        }
        res.used = true;
        return res;
    }

    /** True when {@code psn} is one of a saved READ's or atomic's PSNs: a duplicate of it is replayed. */
    boolean contains(int psn) {
        return find(psn, false) != null || find(psn, true) != null;
    }

    /** The saved READ (or atomic) whose PSNs include {@code psn}, or null. */
    ReadAtomicResource find(int psn, boolean atomic) {
        for (ReadAtomicResource res : resources) {
            if (res != null && res.used && res.atomic == atomic
                    && Psn.compare(psn, res.firstPsn) >= 0 && Psn.compare(psn, res.lastPsn) <= 0) {
                return res;
            }
        }
        return null;
    }
}
