package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.AsyncEventType;
import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpTransitions;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.VerbsException;

/**
 * Every transition of the one table ({@link QpTransitions}, IBTA §10.3.1 and §11.2.5.3, Linux
 * {@code ib_modify_qp_is_ok}) for RC, UC and UD, generated from the table: the required mask succeeds
 * and the query reflects it; each required attribute left out is EINVAL; each attribute outside
 * required ∪ optional is EINVAL; every transition the table lacks is EINVAL. A refused modify leaves
 * the QP in its state.
 *
 * <p>Transitions out of SQE are not driven: SQE is entered only by a send error on UC/UD, never by a
 * modify, so no verbs sequence reaches it deterministically.
 */
@ExtendWith(Backend.Resolver.class)
class QpStateMachineTest {
    /** ALT_PATH and PATH_MIG_STATE have no fields in QpAttr (no alt_ah_attr, no path_mig_state): they are only ever sent as bare mask bits. */
    private static final Set<QpAttrMask> NOT_SETTABLE = EnumSet.of(QpAttrMask.ALT_PATH, QpAttrMask.PATH_MIG_STATE);
    private static final List<QpState> REACHABLE = List.of(
            QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD, QpState.ERR);

    private final Backend backend;

    QpStateMachineTest(Backend backend) {
        this.backend = backend;
    }

    /** One transition; its name ("RC RESET->ERR") names the test invocation, in reports and departure lists. */
    record Transition(QpType type, QpState from, QpState to, QpTransitions.Attributes attributes) {
        @Override
        public String toString() {
            return type + " " + from + "->" + to;
        }
    }

    private Endpoint endpoint;
    private DeviceAttr device;

    @BeforeEach
    void open() {
        endpoint = Endpoint.first(backend);
        device = endpoint.context.queryDevice();
    }

    @AfterEach
    void close() throws Exception {
        endpoint.close();
    }

    static Stream<Transition> transitions() {
        List<Transition> all = new ArrayList<>();
        for (QpType type : QpType.values()) {
            for (QpState from : REACHABLE) {
                for (QpState to : QpState.values()) {
                    QpTransitions.Attributes attributes = QpTransitions.attributes(type, from, to);
                    if (attributes != null) {
                        all.add(new Transition(type, from, to, attributes));
                    }
                }
            }
        }
        return all.stream();
    }

    static Stream<Transition> transitionsWithRequired() {
        return transitions().filter(t -> !t.attributes().required().isEmpty());
    }

    static Stream<Transition> transitionsWithOptional() {
        return transitions().filter(t -> !minus(t.attributes().optional(), NOT_SETTABLE).isEmpty());
    }

    static Stream<Transition> undefinedTransitions() {
        List<Transition> all = new ArrayList<>();
        for (QpType type : QpType.values()) {
            for (QpState from : REACHABLE) {
                for (QpState to : QpState.values()) {
                    if (QpTransitions.attributes(type, from, to) == null) {
                        all.add(new Transition(type, from, to, null));
                    }
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("IBTA 10.3.1: a transition with exactly the required attributes succeeds")
    @MethodSource("transitions")
    void requiredMaskSucceeds(Transition t) {
        Qp qp = qpIn(t.type(), t.from());
        Set<QpAttrMask> mask = withState(t.attributes().required());
        modify(qp, t.type(), t.from(), t.to(), mask);
        assertReflected(qp, t.to(), values(qp, t.from(), t.to(), mask), mask);
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("IBTA 11.2.5.3: a transition with required and every optional attribute succeeds")
    @MethodSource("transitionsWithOptional")
    void requiredAndOptionalSucceed(Transition t) {
        Qp qp = qpIn(t.type(), t.from());
        EnumSet<QpAttrMask> mask = withState(t.attributes().required());
        mask.addAll(minus(t.attributes().optional(), NOT_SETTABLE));
        modify(qp, t.type(), t.from(), t.to(), mask);
        assertReflected(qp, t.to(), values(qp, t.from(), t.to(), mask), mask);
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("ib_modify_qp_is_ok: a transition missing any one required attribute is EINVAL")
    @MethodSource("transitionsWithRequired")
    void eachMissingRequiredAttributeIsEinval(Transition t) {
        Qp qp = qpIn(t.type(), t.from());
        List<String> wrong = new ArrayList<>();
        for (QpAttrMask missing : t.attributes().required()) {
            EnumSet<QpAttrMask> mask = withState(t.attributes().required());
            mask.remove(missing);
            refused(qp, t, mask, "without " + missing, wrong);
        }
        assertThat(wrong).as("modifies that were not EINVAL or moved the QP").isEmpty();
        Set<QpAttrMask> valid = withState(t.attributes().required());
        qp.modify(values(qp, t.from(), t.to(), valid), valid);
        assertThat(qp.state()).as("the refused modifies left the QP intact").isEqualTo(t.to());
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("ib_modify_qp_is_ok: a transition with any attribute outside required and optional is EINVAL")
    @MethodSource("transitions")
    void attributeOutsideTheTableIsEinval(Transition t) {
        Qp qp = qpIn(t.type(), t.from());
        List<String> wrong = new ArrayList<>();
        for (QpAttrMask extra : QpAttrMask.values()) {
            if (extra == QpAttrMask.STATE || t.attributes().required().contains(extra)
                    || t.attributes().optional().contains(extra)) {
                continue;
            }
            EnumSet<QpAttrMask> mask = withState(t.attributes().required());
            mask.add(extra);
            refused(qp, t, mask, "with " + extra, wrong);
        }
        assertThat(wrong).as("modifies that were not EINVAL or moved the QP").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("IBTA 10.3.1: a transition not in the table is EINVAL")
    @MethodSource("undefinedTransitions")
    void undefinedTransitionIsEinval(Transition t) {
        Qp qp = qpIn(t.type(), t.from());
        // Only STATE: nothing but the transition itself can be wrong.
        Set<QpAttrMask> mask = EnumSet.of(QpAttrMask.STATE);
        Expect.errno(Errno.EINVAL, () -> qp.modify(values(qp, t.from(), t.to(), mask), mask));
        assertThat(qp.state()).isEqualTo(t.from());
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("Linux qp_state_table (ib_modify_qp_is_ok): RESET -> ERR is EINVAL and the QP stays in RESET")
    @EnumSource(QpType.class)
    void resetToErrIsEinval(QpType type) {
        Qp qp = qpIn(type, QpState.RESET);
        Set<QpAttrMask> mask = EnumSet.of(QpAttrMask.STATE);
        Expect.errno("modify " + type + " RESET->ERR", Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(QpState.ERR), mask));
        assertThat(qp.state()).isEqualTo(QpState.RESET);
    }

    @Test
    @DisplayName("Linux (rxe_qp_from_attr, mlx5): rq_psn and sq_psn wider than 24 bits are masked, not refused: "
            + "0x1234567 succeeds and query reports 0x234567")
    void psnsWiderThan24BitsAreMasked() throws Exception {
        Qp qp = qpIn(QpType.RC, QpState.INIT);
        Expect.succeeds("modify RC INIT->RTR with rq_psn 0x1234567",
                requiredModify(qp, QpState.INIT, QpState.RTR, attr -> attr.rqPsn(0x1234567)));
        Expect.succeeds("modify RC RTR->RTS with sq_psn 0x1234567",
                requiredModify(qp, QpState.RTR, QpState.RTS, attr -> attr.sqPsn(0x1234567)));
        QpAttr got = qp.query(EnumSet.of(QpAttrMask.RQ_PSN, QpAttrMask.SQ_PSN));
        Expect.outcome("queried rq_psn", "0x234567", "0x" + Integer.toHexString(got.rqPsn()));
        Expect.outcome("queried sq_psn", "0x234567", "0x" + Integer.toHexString(got.sqPsn()));
    }

    @Test
    @DisplayName("Linux uverbs modify_qp: a privileged Q_Key (bit 31 set) is EPERM for a process without CAP_NET_RAW; "
            + "bit 31 clear is fine")
    void privilegedQkeyIsEperm() throws Exception {
        Qp qp = qpIn(QpType.UD, QpState.RESET);
        Expect.errno("modify UD RESET->INIT with Q_Key 0x80000001", Errno.EPERM,
                requiredModify(qp, QpState.RESET, QpState.INIT, attr -> attr.qkey(0x80000001)));
        assertThat(qp.state()).isEqualTo(QpState.RESET);
        Expect.succeeds("modify UD RESET->INIT with Q_Key 0x7fffffff",
                requiredModify(qp, QpState.RESET, QpState.INIT, attr -> attr.qkey(0x7FFFFFFF)));
        assertThat(qp.query(EnumSet.of(QpAttrMask.QKEY)).qkey()).isEqualTo(0x7FFFFFFF);
    }

    /** The modify {@code from → to} with the table's required attributes, {@code change} applied to their values. */
    private Expect.Call requiredModify(Qp qp, QpState from, QpState to, UnaryOperator<QpAttr> change) {
        Set<QpAttrMask> mask = withState(QpTransitions.attributes(qp.type(), from, to).required());
        QpAttr attr = change.apply(values(qp, from, to, mask));
        return () -> qp.modify(attr, mask);
    }

    @Test
    @DisplayName("IBTA 10.3.1: a modify without STATE keeps the state and applies the attributes (RTS->RTS)")
    void modifyWithoutStateStays() {
        Qp qp = qpIn(QpType.RC, QpState.RTS);
        qp.modify(new QpAttr().minRnrTimer(3));
        assertThat(qp.state()).isEqualTo(QpState.RTS);
        assertThat(qp.query(EnumSet.of(QpAttrMask.MIN_RNR_TIMER)).minRnrTimer()).isEqualTo(3);
        // TIMEOUT may change only in SQD->SQD (ib_modify_qp_is_ok), not RTS->RTS.
        Expect.errno(Errno.EINVAL, () -> qp.modify(new QpAttr().timeout(9)));
        assertThat(qp.state()).isEqualTo(QpState.RTS);
    }

    @Test
    @DisplayName("IBTA 11.2.5.3: CUR_STATE that disagrees with the QP's state is EINVAL (RTR->RTS claiming INIT)")
    void wrongCurrentStateIsEinval() {
        Qp qp = qpIn(QpType.RC, QpState.RTR);
        QpAttr attr = values(qp, QpState.RTR, QpState.RTS,
                withState(QpTransitions.attributes(QpType.RC, QpState.RTR, QpState.RTS).required()));
        attr.curQpState(QpState.RTS);
        Expect.errno(Errno.EINVAL, () -> qp.modify(attr));
        assertThat(qp.state()).isEqualTo(QpState.RTR);
    }

    @Test
    @DisplayName("rxe_qp_chk_attr: a path MTU above the port's is EINVAL; port 0 is EINVAL")
    void outOfRangeValuesAreEinval() {
        Qp qp = qpIn(QpType.RC, QpState.RESET);
        Expect.errno(Errno.EINVAL, () -> qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(0)
                .qpAccessFlags(EnumSet.noneOf(AccessFlag.class))));
        assertThat(qp.state()).isEqualTo(QpState.RESET);
        Mtu max = endpoint.context.queryPort(Endpoint.PORT).maxMtu();
        if (max != Mtu.MTU_4096) {
            QpPair.bringUp(max, EnumSet.noneOf(AccessFlag.class)).init(qp);
            QpAttr attr = values(qp, QpState.INIT, QpState.RTR,
                    withState(QpTransitions.attributes(QpType.RC, QpState.INIT, QpState.RTR).required()));
            attr.pathMtu(Mtu.of(max.value() + 1));
            Expect.errno(Errno.EINVAL, () -> qp.modify(attr));
            assertThat(qp.state()).isEqualTo(QpState.INIT);
        }
    }

    // ---- helpers

    /**
     * The modify with valid values for {@code mask}, which must succeed: a refusal is an unexpected
     * outcome of the check "modify TYPE FROM->TO" observing the errno, whether it is the transition under
     * test or a step of the set-up.
     */
    private void modify(Qp qp, QpType type, QpState from, QpState to, Set<QpAttrMask> mask) {
        try {
            Expect.succeeds("modify " + type + " " + from + "->" + to, () -> qp.modify(values(qp, from, to, mask), mask));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void refused(Qp qp, Transition t, Set<QpAttrMask> mask, String what, List<String> wrong) {
        try {
            qp.modify(values(qp, t.from(), t.to(), mask), mask);
            wrong.add(what + ": succeeded");
        } catch (VerbsException e) {
            if (e.errno() != Errno.EINVAL) {
                wrong.add(what + ": " + e.errno());
            }
        }
        if (qp.state() != t.from()) {
            wrong.add(what + ": QP moved to " + qp.state());
        }
    }

    /** A QP of this type brought to {@code state} by the required-only transitions of the table. */
    private Qp qpIn(QpType type, QpState state) {
        Qp qp = endpoint.track(endpoint.pd.createQp(QpInitAttr.of(type, endpoint.cq, QpCap.of(8, 8))));
        List<QpState> path = switch (state) {
            case RESET -> List.of();
            case INIT -> List.of(QpState.INIT);
            case RTR -> List.of(QpState.INIT, QpState.RTR);
            case RTS -> List.of(QpState.INIT, QpState.RTR, QpState.RTS);
            case SQD -> List.of(QpState.INIT, QpState.RTR, QpState.RTS, QpState.SQD);
            case ERR -> List.of(QpState.INIT, QpState.ERR);
            case SQE -> throw new IllegalArgumentException("SQE is not reachable by modify");
        };
        QpState at = QpState.RESET;
        for (QpState next : path) {
            if (next == QpState.SQD) {
                enterSqdDrained(qp, type);
            } else {
                modify(qp, type, at, next, withState(QpTransitions.attributes(type, at, next).required()));
            }
            at = next;
        }
        assertThat(qp.state()).as("set-up of %s QP in %s", type, state).isEqualTo(state);
        return qp;
    }

    /**
     * RTS -> SQD, then waits for SQ_DRAINED: a QP leaves SQD only once drained (IBTA 10.3.1's SQD
     * substates; rxe 6.12 answers EINVAL while {@code sq_draining}, which its send task clears a moment
     * after the modify, so a test that does not wait fails by a race on a loaded machine).
     */
    private void enterSqdDrained(Qp qp, QpType type) {
        EnumSet<QpAttrMask> mask = withState(QpTransitions.attributes(type, QpState.RTS, QpState.SQD).required());
        mask.add(QpAttrMask.EN_SQD_ASYNC_NOTIFY);
        QpAttr attr = values(qp, QpState.RTS, QpState.SQD, mask).enSqdAsyncNotify(true);
        try {
            Expect.succeeds("modify " + type + " RTS->SQD", () -> qp.modify(attr, mask));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        long deadline = System.nanoTime() + Completions.PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<AsyncEvent> event = endpoint.context.getAsyncEvent(Duration.ofMillis(100));
            if (event.isPresent() && event.get().type() == AsyncEventType.SQ_DRAINED
                    && event.get().qp() != null && event.get().qp().qpNum() == qp.qpNum()) {
                return;
            }
        }
        throw new AssertionError("set-up of " + type + " QP in SQD: no SQ_DRAINED within " + Completions.PATIENCE);
    }

    /** Valid values for every settable attribute in {@code mask}; ALT_PATH and PATH_MIG_STATE stay bare bits. */
    private QpAttr values(Qp qp, QpState from, QpState to, Set<QpAttrMask> mask) {
        QpAttr attr = new QpAttr();
        for (QpAttrMask m : mask) {
            switch (m) {
                case STATE -> attr.qpState(to);
                case CUR_STATE -> attr.curQpState(from);
                case EN_SQD_ASYNC_NOTIFY -> attr.enSqdAsyncNotify(false);
                case ACCESS_FLAGS -> attr.qpAccessFlags(EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.REMOTE_READ));
                case PKEY_INDEX -> attr.pkeyIndex(0);
                case PORT -> attr.portNum(Endpoint.PORT);
                case QKEY -> attr.qkey(0x5A5A0001);
                case AV -> attr.ahAttr(AhAttr.of(endpoint.gid(), Endpoint.GID_INDEX, Endpoint.PORT));
                case PATH_MTU -> attr.pathMtu(Mtu.MTU_512);
                case TIMEOUT -> attr.timeout(14);
                case RETRY_CNT -> attr.retryCnt(6);
                case RNR_RETRY -> attr.rnrRetry(5);
                case RQ_PSN -> attr.rqPsn(0x123456);
                case MAX_QP_RD_ATOMIC -> attr.maxRdAtomic(Math.min(4, device.maxQpInitRdAtom()));
                case ALT_PATH, PATH_MIG_STATE -> { }
                case MIN_RNR_TIMER -> attr.minRnrTimer(12);
                case SQ_PSN -> attr.sqPsn(0x654321);
                case MAX_DEST_RD_ATOMIC -> attr.maxDestRdAtomic(Math.min(4, device.maxQpRdAtom()));
                case CAP -> attr.cap(qp.initAttr().cap());
                case DEST_QPN -> attr.destQpNum(qp.qpNum());
            }
        }
        return attr;
    }

    /** ibv_query_qp returns the state reached and every attribute the modify carried. */
    private static void assertReflected(Qp qp, QpState to, QpAttr set, Set<QpAttrMask> mask) {
        assertThat(qp.state()).isEqualTo(to);
        QpAttr q = qp.query(EnumSet.allOf(QpAttrMask.class));
        assertThat(q.qpState()).as("queried state").isEqualTo(to);
        for (QpAttrMask m : mask) {
            switch (m) {
                case ACCESS_FLAGS -> assertThat(q.qpAccessFlags()).as("qp_access_flags").isEqualTo(set.qpAccessFlags());
                case PKEY_INDEX -> assertThat(q.pkeyIndex()).as("pkey_index").isEqualTo(set.pkeyIndex());
                case PORT -> assertThat(q.portNum()).as("port_num").isEqualTo(set.portNum());
                case QKEY -> assertThat(q.qkey()).as("qkey").isEqualTo(set.qkey());
                case AV -> assertThat(q.ahAttr()).as("ah_attr").isNotNull()
                        .extracting(AhAttr::dgid).isEqualTo(set.ahAttr().dgid());
                case PATH_MTU -> assertThat(q.pathMtu()).as("path_mtu").isEqualTo(set.pathMtu());
                case TIMEOUT -> assertThat(q.timeout()).as("timeout").isEqualTo(set.timeout());
                case RETRY_CNT -> assertThat(q.retryCnt()).as("retry_cnt").isEqualTo(set.retryCnt());
                case RNR_RETRY -> assertThat(q.rnrRetry()).as("rnr_retry").isEqualTo(set.rnrRetry());
                case RQ_PSN -> assertThat(q.rqPsn()).as("rq_psn").isEqualTo(set.rqPsn());
                case SQ_PSN -> assertThat(q.sqPsn()).as("sq_psn").isEqualTo(set.sqPsn());
                case MAX_QP_RD_ATOMIC -> assertThat(q.maxRdAtomic()).as("max_rd_atomic").isEqualTo(set.maxRdAtomic());
                case MAX_DEST_RD_ATOMIC -> assertThat(q.maxDestRdAtomic()).as("max_dest_rd_atomic")
                        .isEqualTo(set.maxDestRdAtomic());
                case MIN_RNR_TIMER -> assertThat(q.minRnrTimer()).as("min_rnr_timer").isEqualTo(set.minRnrTimer());
                case DEST_QPN -> assertThat(q.destQpNum()).as("dest_qp_num").isEqualTo(set.destQpNum());
                default -> { }
            }
        }
    }

    private static EnumSet<QpAttrMask> withState(Set<QpAttrMask> attributes) {
        EnumSet<QpAttrMask> mask = EnumSet.of(QpAttrMask.STATE);
        mask.addAll(attributes);
        return mask;
    }

    private static Set<QpAttrMask> minus(Set<QpAttrMask> a, Set<QpAttrMask> b) {
        EnumSet<QpAttrMask> result = EnumSet.noneOf(QpAttrMask.class);
        result.addAll(a);
        result.removeAll(b);
        return result;
    }

}
