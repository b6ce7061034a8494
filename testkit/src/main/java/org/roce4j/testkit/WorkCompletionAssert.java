package org.roce4j.testkit;

import org.assertj.core.api.AbstractAssert;
import org.roce4j.verbs.WcFlag;
import org.roce4j.verbs.WcOpcode;
import org.roce4j.verbs.WcStatus;
import org.roce4j.verbs.WorkCompletion;

/**
 * Assertions on one {@link WorkCompletion} ({@code struct ibv_wc}). A failure names the statuses
 * and opcodes as libibverbs does ({@code IBV_WC_REM_ACCESS_ERR (remote access error)}) and shows
 * the work request the completion completes, when the test posted it through the testkit.
 *
 * <pre>{@code
 * assertThat(wc).isSuccess().hasOpcode(WcOpcode.RECV).hasByteLen(64).hasImmData(7);
 * }</pre>
 */
public final class WorkCompletionAssert extends AbstractAssert<WorkCompletionAssert, WorkCompletion> {

    WorkCompletionAssert(WorkCompletion actual) {
        super(actual, WorkCompletionAssert.class);
    }

    /** {@return this assertion, after checking the status is {@code IBV_WC_SUCCESS}} */
    public WorkCompletionAssert isSuccess() {
        return hasStatus(WcStatus.SUCCESS);
    }

    /**
     * {@return this assertion, after checking the status}
     *
     * @param expected the status, e.g. {@link WcStatus#REM_ACCESS_ERR}
     */
    public WorkCompletionAssert hasStatus(WcStatus expected) {
        isNotNull();
        if (actual.status() != expected) {
            fail("status " + Describe.status(expected), Describe.status(actual.status()));
        }
        return this;
    }

    /**
     * {@return this assertion, after checking the opcode}
     *
     * @param expected the opcode, e.g. {@link WcOpcode#RECV}
     */
    public WorkCompletionAssert hasOpcode(WcOpcode expected) {
        isNotNull();
        if (actual.opcode() != expected) {
            fail("opcode " + Describe.opcode(expected), Describe.opcode(actual.opcode()));
        }
        return this;
    }

    /**
     * {@return this assertion, after checking {@code byte_len}}
     *
     * @param expected the bytes received (a UD receive counts the 40-byte GRH) or read
     */
    public WorkCompletionAssert hasByteLen(int expected) {
        isNotNull();
        if (actual.byteLen() != expected) {
            fail("byte_len " + Integer.toUnsignedString(expected), "byte_len " + Integer.toUnsignedString(actual.byteLen()));
        }
        return this;
    }

    /**
     * {@return this assertion, after checking the completion carries immediate data of this value}
     *
     * @param expected the 32-bit immediate value the sender posted
     */
    public WorkCompletionAssert hasImmData(int expected) {
        isNotNull();
        if (!actual.has(WcFlag.WITH_IMM)) {
            fail("immediate data 0x" + Integer.toHexString(expected), "no IBV_WC_WITH_IMM flag");
        } else if (actual.immData() != expected) {
            fail("imm_data 0x" + Integer.toHexString(expected), "imm_data 0x" + Integer.toHexString(actual.immData()));
        }
        return this;
    }

    /**
     * {@return this assertion, after checking the wr_id}
     *
     * @param expected the wr_id of the request this should complete
     */
    public WorkCompletionAssert hasWrId(long expected) {
        isNotNull();
        if (actual.wrId() != expected) {
            fail("wr_id " + Long.toUnsignedString(expected), "wr_id " + Long.toUnsignedString(actual.wrId()));
        }
        return this;
    }

    /**
     * {@return this assertion, after checking the local QP number}
     *
     * @param expected the QP the completion belongs to
     */
    public WorkCompletionAssert hasQpNum(int expected) {
        isNotNull();
        if (actual.qpNum() != expected) {
            fail(String.format("qp_num 0x%06x", expected), String.format("qp_num 0x%06x", actual.qpNum()));
        }
        return this;
    }

    /**
     * {@return this assertion, after checking the sender's QP number (UD receives)}
     *
     * @param expected the sending QP
     */
    public WorkCompletionAssert hasSrcQp(int expected) {
        isNotNull();
        if (actual.srcQp() != expected) {
            fail(String.format("src_qp 0x%06x", expected), String.format("src_qp 0x%06x", actual.srcQp()));
        }
        return this;
    }

    /**
     * {@return this assertion, after checking a {@code wc_flags} bit is set}
     *
     * @param expected the flag, e.g. {@link WcFlag#GRH}
     */
    public WorkCompletionAssert hasFlag(WcFlag expected) {
        isNotNull();
        if (!actual.has(expected)) {
            fail("flag IBV_WC_" + expected, "flags " + actual.flags());
        }
        return this;
    }

    private void fail(String expected, String was) {
        failWithMessage("%nexpected the completion to have %s but it has %s%n  %s", expected, was,
                WorkCompletionText.of(actual).replace("%", "%%"));
    }
}
