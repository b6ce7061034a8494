package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.verbs.EmulatedCq;
import org.roce4j.verbs.CqEx;
import org.roce4j.verbs.CqInitAttrEx;
import org.roce4j.verbs.CreateCqWcFlag;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WorkCompletion;

/** The emulated CQ's own rules: the ones the conformance suite does not reach from the emulator's tests. */
@Timeout(30)
class CompletionQueueTest {

    private static void writes(Qp qp, TwoNodes nodes, int count) {
        for (int i = 1; i <= count; i++) {
            qp.postSend(SendWr.rdmaWrite(i, nodes.a.mr, 0, 8, nodes.b.mr.address(), nodes.b.mr.rkey()));
        }
    }

    @Test
    @DisplayName("a poll of a closed CQ is EINVAL")
    void pollOfClosedCqIsEinval() {
        try (TwoNodes nodes = new TwoNodes()) {
            Cq cq = nodes.a.context.createCq(4);
            cq.close();
            assertThatThrownBy(() -> cq.poll(1)).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @Test
    @DisplayName("rxe_cq_chk_attr: a resize to the completions held keeps them in order, one fewer is EINVAL, "
            + "and another thread polls them after it")
    void resizeToTheCompletionsHeld() throws Exception {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            writes(pair[0], nodes, 3);
            EmulatedCq cq = (EmulatedCq) nodes.a.cq;
            while (cq.size() < 3) {
                Thread.onSpinWait();
            }

            assertThatThrownBy(() -> cq.resize(2)).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThat(cq.resize(3)).isGreaterThanOrEqualTo(3);

            FutureTask<List<WorkCompletion>> poll = new FutureTask<>(() -> cq.poll(8));
            Thread.ofPlatform().start(poll);
            assertThat(poll.get(10, TimeUnit.SECONDS)).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L);
        }
    }

    @Test
    @DisplayName("ibv_start_poll/next_poll/end_poll: end_poll consumes what was read and no more; "
            + "an empty CQ is ENOENT; end_poll outside a poll is EINVAL; another thread polls what is left")
    void extendedPollConsumesWhatWasRead() throws Exception {
        try (TwoNodes nodes = new TwoNodes(Fabric.threaded())) {
            CqEx cq = nodes.a.context.createCqEx(CqInitAttrEx.of(8, CreateCqWcFlag.STANDARD));
            Qp qa = nodes.a.pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(8, 8)));
            Qp qb = nodes.b.createQp(QpType.RC, 4);
            TwoNodes.connect(qa, qb.qpNum(), nodes.b.gid(), 1, 2, Mtu.MTU_1024);
            TwoNodes.connect(qb, qa.qpNum(), nodes.a.gid(), 2, 1, Mtu.MTU_1024);
            writes(qa, nodes, 5);
            while (((EmulatedCq) cq).size() < 5) {
                Thread.onSpinWait();
            }

            assertThat(cq.startPoll()).isZero();
            assertThat(cq.wrId()).isEqualTo(1);
            assertThatThrownBy(cq::startPoll).as("a poll is under way").isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThat(cq.nextPoll()).isZero();
            assertThat(cq.wrId()).isEqualTo(2);
            cq.endPoll();
            assertThatThrownBy(cq::endPoll).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThatThrownBy(cq::nextPoll).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            FutureTask<List<WorkCompletion>> poll = new FutureTask<>(() -> cq.poll(1));
            Thread.ofPlatform().start(poll);
            assertThat(poll.get(10, TimeUnit.SECONDS)).extracting(WorkCompletion::wrId)
                    .as("the two read before were consumed").containsExactly(3L);

            assertThat(cq.startPoll()).isZero();
            assertThat(cq.wrId()).isEqualTo(4);
            assertThat(cq.nextPoll()).isZero();
            assertThat(cq.wrId()).isEqualTo(5);
            assertThat(cq.nextPoll()).isEqualTo(Errno.ENOENT.number());
            assertThat(cq.nextPoll()).as("still the end, not past it").isEqualTo(Errno.ENOENT.number());
            cq.endPoll();
            assertThat(cq.startPoll()).isEqualTo(Errno.ENOENT.number());
            qa.close();
            qb.close();
            cq.close();
        }
    }

    @Test
    @DisplayName("a CQ created with COMPLETION_TIMESTAMP stamps each completion with the fabric's clock")
    void completionsCarryTheFabricsTime() {
        try (TwoNodes nodes = new TwoNodes()) {
            Set<CreateCqWcFlag> flags = EnumSet.copyOf(CreateCqWcFlag.STANDARD);
            flags.add(CreateCqWcFlag.COMPLETION_TIMESTAMP);
            CqEx cq = nodes.a.context.createCqEx(CqInitAttrEx.of(8, flags));
            Qp qa = nodes.a.pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(4, 4)));
            Qp qb = nodes.b.createQp(QpType.RC, 4);
            TwoNodes.connect(qa, qb.qpNum(), nodes.b.gid(), 1, 2, Mtu.MTU_1024);
            TwoNodes.connect(qb, qa.qpNum(), nodes.a.gid(), 2, 1, Mtu.MTU_1024);
            long posted = nodes.now();
            writes(qa, nodes, 1);

            assertThat(cq.startPoll()).as("it runs the deterministic fabric first").isZero();
            assertThat(cq.readCompletionTs()).as("after the WRITE and its ACK crossed the link")
                    .isGreaterThan(posted).isLessThanOrEqualTo(nodes.now());
            cq.endPoll();
            qa.close();
            qb.close();
            cq.close();
        }
    }
}
