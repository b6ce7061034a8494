package org.roce4j.emulator;

/**
 * One way a modelled device departs from the default model (IBTA and the rules every Linux RDMA
 * device follows). A {@link DeviceProfile} is the set of its quirks; behaviour code asks
 * {@link DeviceModel#has(Quirk)} about one rule, never which device it is (DESIGN.md §4). Each entry
 * cites the source it imitates, and the departures list of the profile's real device
 * ({@code conformance/.../departures/rxe-*.txt}) names the quirk that explains each of its lines.
 */
public enum Quirk {
    /**
     * retry_cnt 7 retries forever after timeouts and sequence NAKs: {@code rxe_comp.c rxe_completer}
     * ({@code if (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--}); IBTA 9.7.6.1.3 (C9-141) counts seven.
     */
    RETRY_COUNT_SEVEN_IS_INFINITE,
}
