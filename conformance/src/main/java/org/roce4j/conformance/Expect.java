package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Objects;

import org.roce4j.verbs.BadWorkRequestException;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * Assertions on what libibverbs callers check: the errno of a failed call and the fields of a completion.
 * Where a device's outcome is what differs, the failure is an {@link UnexpectedOutcome}: the check, the
 * outcome the rule expects and the one observed, as data, so that a departure list can name the exact
 * outcome a device is known for ({@link Departures}) and any other failure stays a FAIL.
 */
final class Expect {
    /** The check a plain {@link #errno(Errno, Call)} reports under. */
    static final String THE_CALL = "the call";
    /** What a call that returned normally is observed as. */
    static final String SUCCESS = "success";

    private Expect() {
    }

    /**
     * A check whose outcome is not the rule's.
     *
     * <p>{@code check} names what was checked in words that stay the same from run to run (no addresses,
     * keys or QP numbers), {@code observed} what the device did ({@code EINVAL}, {@code success},
     * {@code LOC_QP_OP_ERR}, a count): {@link #outcome()} is {@code CHECK: OBSERVED}, the form a departure
     * list states.
     */
    static final class UnexpectedOutcome extends AssertionError {
        private final String check;
        private final String expected;
        private final String observed;

        UnexpectedOutcome(String check, Object expected, Object observed, Throwable cause) {
            super(check + ": expected " + expected + ", observed " + observed, cause);
            this.check = check;
            this.expected = String.valueOf(expected);
            this.observed = String.valueOf(observed);
        }

        String check() {
            return check;
        }

        String expected() {
            return expected;
        }

        String observed() {
            return observed;
        }

        /** {@return {@code CHECK: OBSERVED}, as a departure list states the outcome a device shows} */
        String outcome() {
            return check + ": " + observed;
        }
    }

    /** The outcome of {@code check} is {@code expected}, else an {@link UnexpectedOutcome} says what it was. */
    static void outcome(String check, Object expected, Object observed) {
        if (!Objects.equals(String.valueOf(expected), String.valueOf(observed))) {
            throw new UnexpectedOutcome(check, expected, observed, null);
        }
    }

    /** The call succeeds; a VerbsException is an {@link UnexpectedOutcome} observing its errno. */
    static void succeeds(String check, Call call) throws Exception {
        try {
            call.run();
        } catch (VerbsException e) {
            throw new UnexpectedOutcome(check, SUCCESS, e.errno(), e);
        }
    }

    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    /** The call fails with exactly this errno (as a C caller sees the return value). */
    static VerbsException errno(Errno expected, Call call) {
        return errno(THE_CALL, expected, call);
    }

    /** As {@link #errno(Errno, Call)}, reporting an unexpected outcome under {@code check}. */
    static VerbsException errno(String check, Errno expected, Call call) {
        try {
            call.run();
        } catch (VerbsException e) {
            if (e.errno() != expected) {
                throw new UnexpectedOutcome(check, expected, e.errno(), e);
            }
            return e;
        } catch (Exception e) {
            throw new AssertionError("expected VerbsException " + expected + " but got " + e, e);
        }
        throw new UnexpectedOutcome(check, expected, SUCCESS, null);
    }

    /** A post fails with this errno and names the bad work request ({@code bad_wr}). */
    static BadWorkRequestException badWr(Errno expected, int index, Call call) {
        return badWr(THE_CALL, expected, index, call);
    }

    /** As {@link #badWr(Errno, int, Call)}, reporting an unexpected outcome under {@code check}. */
    static BadWorkRequestException badWr(String check, Errno expected, int index, Call call) {
        VerbsException e = errno(check, expected, call);
        assertThat(e).as("a failed post reports bad_wr").isInstanceOf(BadWorkRequestException.class);
        BadWorkRequestException bad = (BadWorkRequestException) e;
        assertThat(bad.index()).as("bad_wr index").isEqualTo(index);
        return bad;
    }

    /** The completion of {@code wrId} is SUCCESS with this opcode; a wrong status is reported as "status of wr_id N". */
    static void success(WorkCompletion wc, long wrId, WcOpcode opcode) {
        status(wc, wrId, WcStatus.SUCCESS);
        assertThat(wc.opcode()).as("opcode of %s", wc).isEqualTo(opcode);
    }

    /** The completion is {@code wrId}'s with this status; a wrong status is reported as "status of wr_id N". */
    static void status(WorkCompletion wc, long wrId, WcStatus status) {
        assertThat(wc.wrId()).as("wr_id of %s", wc).isEqualTo(wrId);
        if (wc.status() != status) {
            throw new UnexpectedOutcome("status of wr_id " + wrId, status, wc.status(),
                    new AssertionError("completion " + wc));
        }
    }

    /** Every completion is WR_FLUSH_ERR and they carry these wr_ids in this order. */
    static void flushed(List<WorkCompletion> wcs, long... wrIds) {
        assertThat(wcs).as("flushed completions").hasSize(wrIds.length);
        for (int i = 0; i < wrIds.length; i++) {
            status(wcs.get(i), wrIds[i], WcStatus.WR_FLUSH_ERR);
        }
    }
}
