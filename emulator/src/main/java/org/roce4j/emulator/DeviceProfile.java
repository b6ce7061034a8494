package org.roce4j.emulator;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

import org.roce4j.emulator.verbs.DeviceLimits;

/**
 * The devices the emulator models by name: the one place that says how each departs from the default
 * model and what limits it has (DESIGN.md §4). An enum so that annotations can name one
 * ({@code @EmulatedFabric(profile = DeviceProfile.RXE_6_12)}); a device no entry describes is a
 * {@link DeviceModel} of its own.
 *
 * <p>An rxe profile is a twin of Linux Soft-RoCE on one kernel: {@code roce4j conformance} on an
 * emulated device with the profile prints the same line for every test as on {@code rxe0} under that
 * kernel ({@code .ci/run} compares them), and its {@code queryDevice} and {@code queryPort} give what
 * {@code ibv_devinfo -v} shows there ({@code conformance/devinfo-twin-check}). Every entry reports and
 * enforces Linux rxe's limits ({@link DeviceLimits}).
 */
public enum DeviceProfile {
    /**
     * The default: IBTA and the rules every Linux RDMA device follows through libibverbs (the core's
     * modify table, uverbs' checks), with no device's own departures.
     */
    LINUX("linux", DeviceLimits.DEFAULT, EnumSet.noneOf(Quirk.class)),
    /** Linux Soft-RoCE ({@code rdma_rxe}) of kernel 6.1 (Debian 12's), with rdma-core 44. */
    RXE_6_1("rxe-6.1", DeviceLimits.RXE_6_1, EnumSet.of(Quirk.RETRY_COUNT_SEVEN_IS_INFINITE, Quirk.UNKNOWN_SEND_LKEY_IS_LOC_QP_OP_ERR,
            Quirk.ORDINARY_MRS_CANNOT_BE_INVALIDATED, Quirk.FAILED_SEND_INVALIDATE_IS_ACKNOWLEDGED,
            Quirk.RECEIVE_BUFFER_ERRORS_ARE_LOC_QP_OP_ERR, Quirk.UD_DATAGRAM_TOO_LONG_FAILS_THE_RECEIVE,
            Quirk.RECEIVE_BUFFERS_CHECKED_AGAINST_THE_QPS_PD, Quirk.RECEIVES_POSTED_IN_ERROR_ARE_NOT_FLUSHED,
            Quirk.POLL_AFTER_CQ_OVERRUN_SUCCEEDS, Quirk.LOOPBACK_IPV4_CHECKSUM_NOT_COMPUTED,
            Quirk.WR_QKEY_HIGH_BIT_SENT_AS_GIVEN, Quirk.UC_SQD_TO_SQD_REFUSES_OPTIONAL_ATTRIBUTES,
            Quirk.QUEUE_DEPTH_ROUNDED_TO_POWER_OF_TWO_MINUS_ONE, Quirk.CREATE_QP_REPORTS_REQUESTED_DEPTH,
            Quirk.SEND_SGES_AND_INLINE_SHARE_ONE_WQE_SIZE, Quirk.REREG_MR_NOT_SUPPORTED,
            Quirk.REPORTS_RXE_DEVICE_CAP_FLAGS, Quirk.PREDATES_ATOMIC_WRITE_AND_FLUSH,
            Quirk.CQ_HAS_NO_COMPLETION_TIMESTAMPS, Quirk.WR_SET_SGE_LIST_LENGTH_IS_COUNT_TIMES_FIRST,
            Quirk.WINDOW_ACCESS_CHECKED_AGAINST_ITS_REGION_ONLY, Quirk.WITH_INV_REPORTED_AS_IP_CSUM_OK,
            Quirk.RKEY_ZERO_WITHOUT_REMOTE_ACCESS, Quirk.NO_ON_DEMAND_PAGING, Quirk.ON_DEMAND_REFUSED_WITH_EINVAL,
            Quirk.PROVIDER_HAS_NO_WR_FLUSH, Quirk.ZERO_BASED_REGIONS_REGISTERED)),
    /** Linux Soft-RoCE ({@code rdma_rxe}) of kernel 6.12 (Debian's 6.12 series), with rdma-core 44. */
    RXE_6_12("rxe-6.12", DeviceLimits.RXE, EnumSet.of(Quirk.RETRY_COUNT_SEVEN_IS_INFINITE, Quirk.REQUESTER_ERRORS_FLUSH_THE_SEND_QUEUE,
            Quirk.ORDINARY_MRS_CANNOT_BE_INVALIDATED, Quirk.FAILED_SEND_INVALIDATE_IS_ACKNOWLEDGED,
            Quirk.RECEIVE_BUFFER_ERRORS_ARE_LOC_QP_OP_ERR, Quirk.RECEIVE_BUFFERS_CHECKED_AGAINST_THE_QPS_PD,
            Quirk.POLL_AFTER_CQ_OVERRUN_SUCCEEDS, Quirk.LOOPBACK_IPV4_CHECKSUM_NOT_COMPUTED,
            Quirk.WR_QKEY_HIGH_BIT_SENT_AS_GIVEN, Quirk.UC_SQD_TO_SQD_REFUSES_OPTIONAL_ATTRIBUTES,
            Quirk.MODIFY_WITHOUT_STATE_SKIPS_THE_TRANSITION_TABLE,
            Quirk.QUEUE_DEPTH_ROUNDED_TO_POWER_OF_TWO_MINUS_ONE, Quirk.SEND_SGES_AND_INLINE_SHARE_ONE_WQE_SIZE,
            Quirk.REREG_MR_NOT_SUPPORTED, Quirk.REPORTS_RXE_DEVICE_CAP_FLAGS,
            Quirk.CQ_HAS_NO_COMPLETION_TIMESTAMPS, Quirk.WR_SET_SGE_LIST_LENGTH_IS_COUNT_TIMES_FIRST,
            Quirk.WINDOW_ACCESS_CHECKED_AGAINST_ITS_REGION_ONLY, Quirk.WITH_INV_REPORTED_AS_IP_CSUM_OK,
            Quirk.NO_ON_DEMAND_PAGING, Quirk.PROVIDER_HAS_NO_WR_FLUSH, Quirk.RC_FLUSH_ICRC_COUNTS_ITS_HEADERS_TWICE));

    private final DeviceModel model;

    DeviceProfile(String name, DeviceLimits limits, Set<Quirk> quirks) {
        this.model = new DeviceModel(name, limits, quirks);
    }

    /** {@return the device this entry names: its limits and its quirks} */
    public DeviceModel model() {
        return model;
    }

    /** {@return how reports, {@code -d emu:...?profile=} and {@code -Droce4j.emulator.profile} name it} */
    public String id() {
        return model.name();
    }

    /**
     * {@return the profile with this {@link #id()}}
     *
     * @throws IllegalArgumentException naming the known ones, when none has it
     */
    public static DeviceProfile named(String id) {
        for (DeviceProfile profile : values()) {
            if (profile.id().equals(id)) {
                return profile;
            }
        }
        throw new IllegalArgumentException("no device profile '" + id + "' (known: "
                + Arrays.stream(values()).map(DeviceProfile::id).collect(Collectors.joining(", ")) + ")");
    }
}
