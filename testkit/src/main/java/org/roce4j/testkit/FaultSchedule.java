package org.roce4j.testkit;

import org.roce4j.emulator.fabric.Faults;

/**
 * A scripted fault schedule for {@link EmulatedFabric#faults()}: adds rules to the test's seeded
 * plan. Implementations need a public no-argument constructor.
 *
 * <pre>{@code
 * public static final class LoseThirdAck implements FaultSchedule {
 *     public Faults addTo(Faults plan) {
 *         return plan.dropNth(3, FrameMatch.only(FrameClass.ACKS));
 *     }
 * }
 * }</pre>
 *
 * <p>Rules reach rdma_cm's MADs by message with {@code FrameMatch.cm(CmAttribute...)}: e.g.
 * {@code plan.drop(1.0, FrameMatch.cm(CmAttribute.RTU))} loses every RTU, and the passive side is
 * ESTABLISHED by the first data packet instead; every REQ lost ends in UNREACHABLE.
 */
@FunctionalInterface
public interface FaultSchedule {
    /**
     * {@return {@code plan} with this schedule's rules added}
     *
     * @param plan the test's plan so far, seeded with the test's seed
     */
    Faults addTo(Faults plan);

    /** No scripted faults: the default of {@link EmulatedFabric#faults()}. */
    final class None implements FaultSchedule {
        /** Creates the empty schedule. */
        public None() {
        }

        @Override
        public Faults addTo(Faults plan) {
            return plan;
        }
    }
}
