package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqAttr;
import org.roce4j.verbs.SrqAttrMask;
import org.roce4j.verbs.SrqInitAttr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.verbs.WorkCompletion;

/**
 * Arguments C cannot pass but Java can: a null reference, a negative count or size. The API's
 * convention (package javadoc of {@code org.roce4j.verbs}): null is a {@link NullPointerException}
 * whose message names the parameter, as {@code Objects.requireNonNull(x, "x")} gives; a negative
 * count or size is {@link VerbsException} EINVAL, what libibverbs returns for a count it cannot
 * use. Nothing else may escape — not an {@code IllegalArgumentException}, a
 * {@code NegativeArraySizeException} or a bare NPE from deep inside a backend.
 */
@ExtendWith(Backend.Resolver.class)
class ArgumentChecksTest {
    private final Backend backend;

    ArgumentChecksTest(Backend backend) {
        this.backend = backend;
    }

    /** One call with one bad argument, on a fresh endpoint. */
    @FunctionalInterface
    interface BadCall {
        void run(Endpoint e) throws Exception;
    }

    static Stream<Arguments> nullArguments() {
        return Stream.of(
                nullCase("Context.getAsyncEvent(null)", "timeout", e -> e.context.getAsyncEvent(null)),
                nullCase("Pd.regMr(null, access)", "memory", e -> e.pd.regMr(null, Endpoint.ALL_ACCESS)),
                nullCase("Pd.regMr(memory, null)", "access", e -> e.pd.regMr(e.allocate(64), null)),
                nullCase("Pd.createQp(null)", "initAttr", e -> e.pd.createQp(null)),
                nullCase("Pd.createSrq(null)", "initAttr", e -> e.pd.createSrq(null)),
                nullCase("Pd.createAh(null)", "attr", e -> e.pd.createAh(null)),
                nullCase("Cq.poll(null array)", "completions", e -> e.cq.poll((WorkCompletion[]) null)),
                nullCase("CompChannel.getCqEvent(null)", "timeout", e -> channel(e).getCqEvent(null)),
                nullCase("CompChannel.ackCqEvents(null, 1)", "cq", e -> channel(e).ackCqEvents(null, 1)),
                nullCase("Qp.modify(null, mask)", "attr", e -> rcQp(e).modify(null, Set.of())),
                nullCase("Qp.modify(attr, null)", "mask",
                        e -> rcQp(e).modify(new QpAttr(), null)),
                nullCase("Qp.query(null)", "mask", e -> rcQp(e).query(null)),
                nullCase("Qp.postSend((SendWr) null)", "wr", e -> rcQp(e).postSend((SendWr) null)),
                nullCase("Qp.postSend((List) null)", "wrs", e -> rcQp(e).postSend((List<SendWr>) null)),
                nullCase("Qp.postRecv((RecvWr) null)", "wr", e -> rcQp(e).postRecv((RecvWr) null)),
                nullCase("Qp.postRecv((List) null)", "wrs", e -> rcQp(e).postRecv((List<RecvWr>) null)),
                nullCase("Srq.postRecv((RecvWr) null)", "wr", e -> srq(e).postRecv((RecvWr) null)),
                nullCase("Srq.modify(null, mask)", "attr", e -> srq(e).modify(null, EnumSet.of(SrqAttrMask.LIMIT))),
                nullCase("Srq.modify(attr, null)", "mask", e -> srq(e).modify(new SrqAttr(0, 0, 1), null)),
                nullCase("SendWr.send(wrId, null mr, ...)", "mr", e -> SendWr.send(1, null, 0, 8)),
                nullCase("RecvWr.of(wrId, null mr, ...)", "mr", e -> RecvWr.of(1, null, 0, 8)),
                nullCase("SendWr.ud(null ah, ...)", "ah", e -> new SendWr().ud(null, 1, 1)),
                nullCase("SendWr.opcode(null)", "op", e -> new SendWr().opcode(null)));
    }

    static Stream<Arguments> negativeCounts() {
        return Stream.of(
                negativeCase("Cq.poll(-1)", e -> e.cq.poll(-1)),
                negativeCase("Context.createCq(-1)", e -> e.track(e.context.createCq(-1))),
                negativeCase("Context.createCq(cqe, null, compVector -1)", e -> e.track(e.context.createCq(4, null, -1))),
                negativeCase("CompChannel.ackCqEvents(cq, -1)", e -> channel(e).ackCqEvents(e.cq, -1)),
                negativeCase("QpCap with max_send_wr -1", e -> new QpCap(-1, 1, 1, 1, 0)),
                negativeCase("QpCap with max_recv_sge -1", e -> new QpCap(1, 1, 1, -1, 0)),
                negativeCase("QpCap with max_inline_data -1", e -> new QpCap(1, 1, 1, 1, -1)),
                negativeCase("SrqInitAttr with max_wr -1", e -> new SrqInitAttr(-1, 1, 0)),
                negativeCase("SrqAttr with srq_limit -1", e -> new SrqAttr(1, 1, -1)),
                negativeCase("Context.queryGid(port, -1)", e -> e.context.queryGid(Endpoint.PORT, -1)),
                negativeCase("Context.queryPort(-1)", e -> e.context.queryPort(-1)));
    }

    @ParameterizedTest(name = "Java convention: {0} is a NullPointerException naming ''{1}''")
    @MethodSource("nullArguments")
    void nullIsANullPointerExceptionNamingTheParameter(String call, String parameter, BadCall bad) throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Throwable thrown = catchThrowable(() -> bad.run(e));
            assertThat(thrown).as(call).isExactlyInstanceOf(NullPointerException.class);
            assertThat(thrown.getMessage()).as("message of %s", call).isEqualTo(parameter);
        }
    }

    @ParameterizedTest(name = "libibverbs: {0} is EINVAL")
    @MethodSource("negativeCounts")
    void negativeCountIsEinval(String call, BadCall bad) throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            Expect.errno(Errno.EINVAL, () -> bad.run(e));
        }
    }

    private static Arguments nullCase(String call, String parameter, BadCall bad) {
        return Arguments.of(call, parameter, bad);
    }

    private static Arguments negativeCase(String call, BadCall bad) {
        return Arguments.of(call, bad);
    }

    private static CompChannel channel(Endpoint e) {
        return e.track(e.context.createCompChannel());
    }

    private static Qp rcQp(Endpoint e) {
        return e.track(e.pd.createQp(QpInitAttr.of(QpType.RC, e.cq, QpCap.of(4, 4))));
    }

    private static Srq srq(Endpoint e) {
        return e.track(e.pd.createSrq(new SrqInitAttr(4, 1, 0)));
    }
}
