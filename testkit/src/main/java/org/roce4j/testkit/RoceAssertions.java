package org.roce4j.testkit;

import java.lang.foreign.MemorySegment;

import org.assertj.core.api.Assertions;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.WorkCompletion;

/**
 * AssertJ's {@link Assertions} plus assertions for verbs objects: one static import gives both.
 *
 * <pre>{@code
 * import static org.roce4j.testkit.RoceAssertions.assertThat;
 *
 * assertThat(wc).isSuccess().hasOpcode(WcOpcode.RECV).hasByteLen(64).hasImmData(7);
 * assertThat(cq).hasCompletions(WcStatus.SUCCESS, WcStatus.WR_FLUSH_ERR);
 * assertThat(qp).isInState(QpState.ERR);
 * assertThat(mr.segment()).hasBytesAt(0, (byte) 1, (byte) 2);
 * }</pre>
 */
public class RoceAssertions extends Assertions {
    /** Only static methods; subclass it to add your own next to these. */
    protected RoceAssertions() {
    }

    /**
     * {@return assertions on a work completion}
     *
     * @param actual the completion
     */
    public static WorkCompletionAssert assertThat(WorkCompletion actual) {
        return new WorkCompletionAssert(actual);
    }

    /**
     * {@return assertions on a completion queue, which poll it}
     *
     * @param actual the completion queue
     */
    public static CqAssert assertThat(Cq actual) {
        return new CqAssert(actual);
    }

    /**
     * {@return assertions on a queue pair}
     *
     * @param actual the queue pair
     */
    public static QpAssert assertThat(Qp actual) {
        return new QpAssert(actual);
    }

    /**
     * {@return assertions on memory}
     *
     * @param actual the memory, e.g. {@code mr.segment()}
     */
    public static SegmentAssert assertThat(MemorySegment actual) {
        return new SegmentAssert(actual);
    }
}
