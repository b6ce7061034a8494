package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.List;

import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/** Assertions on what libibverbs callers check: the errno of a failed call and the fields of a completion. */
final class Expect {
    private Expect() {
    }

    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    /** The call fails with exactly this errno (as a C caller sees the return value). */
    static VerbsException errno(Errno expected, Call call) {
        try {
            call.run();
        } catch (VerbsException e) {
            assertThat(e.errno()).as("errno of %s", e.getMessage()).isEqualTo(expected);
            return e;
        } catch (Exception e) {
            throw new AssertionError("expected VerbsException " + expected + " but got " + e, e);
        }
        return fail("expected " + expected + " but the call succeeded");
    }

    /** A post fails with this errno and names the bad work request ({@code bad_wr}). */
    static BadWorkRequestException badWr(Errno expected, int index, Call call) {
        VerbsException e = errno(expected, call);
        assertThat(e).as("a failed post reports bad_wr").isInstanceOf(BadWorkRequestException.class);
        BadWorkRequestException bad = (BadWorkRequestException) e;
        assertThat(bad.index()).as("bad_wr index").isEqualTo(index);
        return bad;
    }

    static void success(WorkCompletion wc, long wrId, WcOpcode opcode) {
        assertThat(wc.status()).as("status of %s", wc).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wrId()).as("wr_id of %s", wc).isEqualTo(wrId);
        assertThat(wc.opcode()).as("opcode of %s", wc).isEqualTo(opcode);
    }

    static void status(WorkCompletion wc, long wrId, WcStatus status) {
        assertThat(wc.status()).as("status of %s", wc).isEqualTo(status);
        assertThat(wc.wrId()).as("wr_id of %s", wc).isEqualTo(wrId);
    }

    /** Every completion is WR_FLUSH_ERR and they carry these wr_ids in this order. */
    static void flushed(List<WorkCompletion> wcs, long... wrIds) {
        assertThat(wcs).as("flushed completions").hasSize(wrIds.length);
        for (int i = 0; i < wrIds.length; i++) {
            status(wcs.get(i), wrIds[i], WcStatus.WR_FLUSH_ERR);
        }
    }
}
