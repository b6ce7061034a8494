package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.AdviseMrAdvice;
import org.roce4j.verbs.AdviseMrFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.OdpCaps;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.ScatterGatherList;
import org.roce4j.verbs.VerbsException;

/**
 * On-demand paging on the emulator: the default model is rxe's ODP (kernel 6.14 on, rxe.c rxe_init_device_param,
 * rxe_odp.c rxe_ib_advise_mr); {@link Quirk#NO_ON_DEMAND_PAGING} and {@link Quirk#ON_DEMAND_REFUSED_WITH_EINVAL}
 * are rxe before 6.14, as {@code ibverbs/src/test/c/rxe-probe-odp.c} measured on rxe0 of 6.1 and 6.12.
 */
class OnDemandPagingTest {
    private static final Set<AccessFlag> ODP = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.ON_DEMAND);

    @Test
    @DisplayName("rxe.c rxe_init_device_param: odp_caps IB_ODP_SUPPORT (no IMPLICIT); RC SEND RECV WRITE READ ATOMIC "
            + "SRQ_RECV, FLUSH and ATOMIC_WRITE (the default model does both); UC none; UD SEND RECV SRQ_RECV")
    void defaultModelReportsRxesOdpCaps() {
        try (Context ctx = ProfiledDevice.open(DeviceProfile.LINUX)) {
            OdpCaps caps = ctx.queryOdpCaps();
            assertThat(caps.generalCaps()).containsExactly(OdpCaps.General.SUPPORT);
            assertThat(caps.rcCaps()).containsExactlyInAnyOrder(OdpCaps.Transport.SEND, OdpCaps.Transport.RECV,
                    OdpCaps.Transport.WRITE, OdpCaps.Transport.READ, OdpCaps.Transport.ATOMIC,
                    OdpCaps.Transport.SRQ_RECV, OdpCaps.Transport.FLUSH, OdpCaps.Transport.ATOMIC_WRITE);
            assertThat(caps.ucCaps()).isEmpty();
            assertThat(caps.udCaps()).containsExactlyInAnyOrder(OdpCaps.Transport.SEND, OdpCaps.Transport.RECV,
                    OdpCaps.Transport.SRQ_RECV);
        }
    }

    @Test
    @DisplayName("rxe_ib_advise_mr: a region of another PD, or one that is not ODP, is EINVAL; a deregistered one too")
    void adviseRefusesRegionsItCannotPrefetch() {
        try (Context ctx = ProfiledDevice.open(DeviceProfile.LINUX); Arena arena = Arena.ofShared()) {
            Pd pd = ctx.allocPd();
            Pd other = ctx.allocPd();
            Mr foreign = other.regMr(arena.allocate(4096), ODP);
            Mr pinned = pd.regMr(arena.allocate(4096), Set.of(AccessFlag.LOCAL_WRITE));
            Mr gone = pd.regMr(arena.allocate(4096), ODP);
            ScatterGatherList goneRange = new ScatterGatherList().add(gone, 0, 64);
            gone.close();
            for (ScatterGatherList sgl : java.util.List.of(new ScatterGatherList().add(foreign, 0, 64),
                    new ScatterGatherList().add(pinned, 0, 64), goneRange)) {
                VerbsException e = catchThrowableOfType(VerbsException.class,
                        () -> pd.adviseMr(AdviseMrAdvice.PREFETCH, EnumSet.of(AdviseMrFlag.FLUSH), sgl));
                assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            }
            foreign.close();
            pinned.close();
            other.close();
            pd.close();
        }
    }

    @Test
    @DisplayName("ib_umem_odp_map_dma_and_lock: a synchronous prefetch may reach the region's last page, not past it")
    void synchronousPrefetchIsBoundedByTheRegionsPages() {
        try (Context ctx = ProfiledDevice.open(DeviceProfile.LINUX); Arena arena = Arena.ofShared()) {
            Pd pd = ctx.allocPd();
            Mr mr = pd.regMr(arena.allocate(100, 4096), ODP);
            pd.adviseMr(AdviseMrAdvice.PREFETCH, EnumSet.of(AdviseMrFlag.FLUSH),
                    new ScatterGatherList().add(mr.address(), 4096, mr.lkey()));
            VerbsException e = catchThrowableOfType(VerbsException.class, () -> pd.adviseMr(AdviseMrAdvice.PREFETCH,
                    EnumSet.of(AdviseMrFlag.FLUSH), new ScatterGatherList().add(mr.address(), 4097, mr.lkey())));
            assertThat(e.errno()).isEqualTo(Errno.EFAULT);
            mr.close();
            pd.close();
        }
    }

    @DisplayName("Quirk.NO_ON_DEMAND_PAGING (rxe 6.1, 6.12): odp_caps all 0, ON_DEMAND refused, ibv_advise_mr EOPNOTSUPP; "
            + "Quirk.ON_DEMAND_REFUSED_WITH_EINVAL (6.1): the refusal is EINVAL")
    @ParameterizedTest(name = "{0}")
    @EnumSource(names = {"RXE_6_1", "RXE_6_12"})
    void rxeBefore614HasNoOnDemandPaging(DeviceProfile profile) {
        Errno refusal = profile == DeviceProfile.RXE_6_1 ? Errno.EINVAL : Errno.EOPNOTSUPP;
        assertThat(profile.model().has(Quirk.ON_DEMAND_REFUSED_WITH_EINVAL)).isEqualTo(refusal == Errno.EINVAL);
        try (Context ctx = ProfiledDevice.open(profile); Arena arena = Arena.ofShared()) {
            assertThat(ctx.queryOdpCaps()).isEqualTo(OdpCaps.NONE);
            Pd pd = ctx.allocPd();
            VerbsException reg = catchThrowableOfType(VerbsException.class, () -> pd.regMr(arena.allocate(4096), ODP));
            assertThat(reg.errno()).isEqualTo(refusal);
            VerbsException implicit = catchThrowableOfType(VerbsException.class, () -> pd.regImplicitOdpMr(ODP));
            assertThat(implicit.errno()).isEqualTo(refusal);
            VerbsException first = catchThrowableOfType(VerbsException.class,
                    () -> pd.regMr(arena.allocate(4096), EnumSet.of(AccessFlag.REMOTE_WRITE, AccessFlag.ON_DEMAND)));
            assertThat(first.errno()).as("REMOTE_WRITE without LOCAL_WRITE, checked first").isEqualTo(Errno.EINVAL);
            Mr mr = pd.regMr(arena.allocate(4096), Set.of(AccessFlag.LOCAL_WRITE));
            VerbsException advise = catchThrowableOfType(VerbsException.class, () -> pd.adviseMr(AdviseMrAdvice.PREFETCH,
                    Set.of(), new ScatterGatherList().add(mr, 0, 64)));
            assertThat(advise.errno()).isEqualTo(Errno.EOPNOTSUPP);
            mr.close();
            pd.close();
        }
    }
}
