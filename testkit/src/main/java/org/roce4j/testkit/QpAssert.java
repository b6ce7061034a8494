package org.roce4j.testkit;

import org.assertj.core.api.AbstractAssert;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpState;

/** Assertions on a {@link Qp} ({@code struct ibv_qp}). */
public final class QpAssert extends AbstractAssert<QpAssert, Qp> {

    QpAssert(Qp actual) {
        super(actual, QpAssert.class);
    }

    /**
     * {@return this assertion, after checking the QP's state ({@code ibv_query_qp}'s {@code qp_state})}
     *
     * @param expected the state, e.g. {@link QpState#ERR} after a fatal completion error
     */
    public QpAssert isInState(QpState expected) {
        isNotNull();
        QpState state = actual.state();
        if (state != expected) {
            failWithMessage("%nexpected %s to be in IBV_QPS_%s but it is in IBV_QPS_%s", Describe.resource(actual),
                    expected, state);
        }
        return this;
    }
}
