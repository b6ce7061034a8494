package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.ReregFlag;
import org.roce4j.verbs.ReregMrException;

/**
 * {@link Quirk#REREG_MR_NOT_SUPPORTED}: on the rxe profiles ibv_rereg_mr passes libibverbs' input checks
 * (ERR_INPUT, EINVAL) and then fails ERR_CMD with EOPNOTSUPP whatever it asks, flags 0 included, as
 * {@code rxe-probe-capacities.c} measured on kernels 6.1 and 6.12 with rdma-core 44.
 */
class ReregQuirkTest {
    @DisplayName("rxe profiles (rdma-core 44's rxe provider has no rereg_mr): ibv_rereg_mr is ERR_INPUT/EINVAL for bad input, else ERR_CMD/EOPNOTSUPP, the region unchanged")
    @ParameterizedTest(name = "{0}")
    @EnumSource(names = {"RXE_6_1", "RXE_6_12"})
    void rxeProviderRefusesEveryReregistrationWithEopnotsupp(DeviceProfile profile) {
        try (Context ctx = ProfiledDevice.open(profile); Arena arena = Arena.ofShared()) {
            Pd pd = ctx.allocPd();
            Mr mr = pd.regMr(arena.allocate(64), Set.of(AccessFlag.LOCAL_WRITE));
            int lkey = mr.lkey();
            for (Set<ReregFlag> flags : java.util.List.of(EnumSet.of(ReregFlag.CHANGE_ACCESS),
                    EnumSet.of(ReregFlag.CHANGE_PD), EnumSet.noneOf(ReregFlag.class))) {
                ReregMrException e = catchThrowableOfType(ReregMrException.class,
                        () -> mr.rereg(flags, pd, null, flags.contains(ReregFlag.CHANGE_ACCESS)
                                ? EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ) : Set.of()));
                assertThat(e.code()).as("%s", flags).isEqualTo(ReregMrException.ErrorCode.CMD);
                assertThat(e.errno()).as("%s", flags).isEqualTo(Errno.EOPNOTSUPP);
            }
            ReregMrException input = catchThrowableOfType(ReregMrException.class,
                    () -> mr.rereg(EnumSet.of(ReregFlag.CHANGE_TRANSLATION), null, null, Set.of()));
            assertThat(input.code()).isEqualTo(ReregMrException.ErrorCode.INPUT);
            assertThat(input.errno()).isEqualTo(Errno.EINVAL);
            assertThat(mr.access()).isEqualTo(Set.of(AccessFlag.LOCAL_WRITE));
            assertThat(mr.lkey()).isEqualTo(lkey);
            mr.close();
            pd.close();
        }
    }
}
