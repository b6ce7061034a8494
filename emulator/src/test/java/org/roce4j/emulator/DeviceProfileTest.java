package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.emulator.verbs.DeviceLimits;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.MacAddress;

/** The device profiles' answers, each the rule of the specification or of the device it models. */
class DeviceProfileTest {
    @Test
    @DisplayName("IBTA 9.7.6.1.3: retry_cnt 7 is seven retries, never forever")
    void ibtaRetryCountSevenIsSevenRetries() {
        for (int retryCnt = 0; retryCnt <= 7; retryCnt++) {
            assertThat(DeviceProfile.LINUX.model().retriesForever(retryCnt)).as("retry_cnt %d", retryCnt).isFalse();
        }
    }

    @Test
    @DisplayName("rxe_comp.c rxe_completer: retry_cnt 7 retries forever, 0..6 run out")
    void rxeRetryCountSevenIsForever() {
        assertThat(DeviceProfile.RXE_6_12.model().retriesForever(7)).isTrue();
        for (int retryCnt = 0; retryCnt < 7; retryCnt++) {
            assertThat(DeviceProfile.RXE_6_12.model().retriesForever(retryCnt)).as("retry_cnt %d", retryCnt).isFalse();
        }
    }

    @Test
    @DisplayName("ibv_devinfo -v on rxe0: each rxe profile reports its kernel's limits, the default rxe 6.12's")
    void eachProfileHasItsKernelsLimits() {
        assertThat(DeviceProfile.RXE_6_12.model().limits()).isEqualTo(DeviceLimits.RXE);
        assertThat(DeviceProfile.RXE_6_1.model().limits()).isEqualTo(DeviceLimits.RXE_6_1);
        assertThat(DeviceProfile.LINUX.model().limits()).isEqualTo(DeviceLimits.DEFAULT);
        for (DeviceProfile profile : DeviceProfile.values()) {
            assertThat(DeviceProfile.named(profile.id())).isSameAs(profile);
        }
        DeviceLimits rxe = DeviceLimits.RXE;
        assertThat(rxe.maxQp()).as("RXE_MAX_QP").isEqualTo(1048560);
        assertThat(rxe.maxQpWr()).as("RXE_MAX_QP_WR").isEqualTo(1 << 20);
        assertThat(rxe.maxMr()).as("RXE_MAX_MR").isEqualTo(524287);
        assertThat(rxe.maxSrq()).as("RXE_MAX_SRQ").isEqualTo(917503);
        assertThat(rxe.maxCqe()).as("(1 << RXE_MAX_LOG_CQE) - 1").isEqualTo(32767);
        assertThat(rxe.maxInlineData()).as("RXE_MAX_INLINE_DATA").isEqualTo(400);
        assertThat(rxe.gidTableLength()).as("RXE_PORT_GID_TBL_LEN").isEqualTo(1024);
        assertThat(rxe.pkeyTableLength()).as("RXE_PORT_PKEY_TBL_LEN").isEqualTo(1);
        assertThat(rxe.maxMsgSize()).as("6.12's max_msg_sz").isEqualTo(0x80000000L);
        assertThat(DeviceLimits.RXE_6_1.maxMsgSize()).as("6.1's RXE_PORT_MAX_MSG_SZ").isEqualTo(0x800000L);
        assertThat(DeviceLimits.RXE_6_1).usingRecursiveComparison().ignoringFields("maxMsgSize").isEqualTo(DeviceLimits.RXE);
        assertThat(rxe.maxMw()).as("RXE_MAX_MW").isEqualTo(524287);
        assertThat(List.of(rxe.maxMcastGrp(), rxe.maxMcastQpAttach(), rxe.maxTotalMcastQpAttach()))
                .as("RXE_MAX_MCAST_GRP, RXE_MAX_MCAST_QP_ATTACH, RXE_MAX_TOT_MCAST_QP_ATTACH").containsExactly(8192, 56, 458752);
        assertThat(DeviceLimits.DEFAULT).as("the default model has windows and multicast: rxe 6.12's limits").isEqualTo(rxe);
    }

    @Test
    @DisplayName("A device's limits come from its profile: with max_qp 2, ibv_query_device says 2 and the third ibv_create_qp is ENOMEM (rxe_pool.c __rxe_add_to_pool: num_elem past the pool's max_elem)")
    void aProfilesLimitsAreReportedAndEnforced() {
        Fabric fabric = Fabric.deterministic();
        DeviceModel twoQps = DeviceProfile.LINUX.model().withLimits(rxeWithMaxQp(2));
        try (Context small = node(fabric, "small", "02:00:00:00:00:01", "10.0.0.1", twoQps).device().open();
             Context rxe = node(fabric, "rxe", "02:00:00:00:00:02", "10.0.0.2", DeviceProfile.LINUX.model()).device().open()) {
            assertThat(small.queryDevice().maxQp()).isEqualTo(2);
            assertThat(rxe.queryDevice().maxQp()).isEqualTo(1048560);

            List<Runnable> closers = new ArrayList<>();
            Pd pd = small.allocPd();
            Cq cq = small.createCq(16);
            QpInitAttr init = QpInitAttr.of(QpType.RC, cq, new QpCap(4, 4, 1, 1, 0));
            closers.add(pd.createQp(init)::close);
            closers.add(pd.createQp(init)::close);
            assertThatThrownBy(() -> pd.createQp(init)).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));

            Pd rxePd = rxe.allocPd();
            Cq rxeCq = rxe.createCq(16);
            QpInitAttr rxeInit = QpInitAttr.of(QpType.RC, rxeCq, new QpCap(4, 4, 1, 1, 0));
            for (int i = 0; i < 3; i++) {
                closers.add(rxePd.createQp(rxeInit)::close);
            }
            closers.forEach(Runnable::run);
            cq.close();
            pd.close();
            rxeCq.close();
            rxePd.close();
        }
    }

    @Test
    @DisplayName("A model with other limits keeps its departures: RXE with two QPs still retries forever at retry_cnt 7")
    void withLimitsKeepsTheDepartures() {
        DeviceModel small = DeviceProfile.RXE_6_12.model().withLimits(rxeWithMaxQp(2));
        assertThat(small.retriesForever(7)).isTrue();
        assertThat(small.limits().maxQp()).isEqualTo(2);
        assertThat(small.name()).isEqualTo("rxe-6.12");
    }

    @Test
    @DisplayName("IBTA 9.2.4: QPNs are 24 bits, so max_qp must leave a QPN base between 2 and 0xFFFFFF")
    void maxQpFitsTheQpnSpace() {
        assertThatIllegalArgumentException().isThrownBy(() -> rxeWithMaxQp(0));
        assertThatIllegalArgumentException().isThrownBy(() -> rxeWithMaxQp(0xFFFFFD));
        assertThat(rxeWithMaxQp(0xFFFFFC).maxQp()).isEqualTo(0xFFFFFC);
    }

    /** Linux rxe's limits with another max_qp: what a profile's one-line difference looks like. */
    private static DeviceLimits rxeWithMaxQp(int maxQp) {
        DeviceLimits r = DeviceLimits.RXE;
        return new DeviceLimits(maxQp, r.maxQpWr(), r.maxSge(), r.maxSgeRd(), r.maxCq(), r.maxCqe(), r.maxMr(),
                r.maxPd(), r.maxQpRdAtom(), r.maxQpInitRdAtom(), r.maxResRdAtom(), r.maxMw(), r.maxMcastGrp(),
                r.maxMcastQpAttach(), r.maxTotalMcastQpAttach(), r.maxAh(), r.maxSrq(),
                r.maxSrqWr(), r.maxSrqSge(), r.maxPkeys(), r.localCaAckDelay(), r.maxInlineData(),
                r.pageSizeCap(), r.maxMrSize(), r.vendorId(), r.gidTableLength(), r.maxMsgSize(),
                r.pkeyTableLength(), r.portCapFlags(), r.activeWidth(), r.activeSpeed());
    }

    private static SoftRnic node(Fabric fabric, String name, String mac, String ip, DeviceModel model) {
        try {
            return SoftRnic.builder(fabric).name(name).mac(MacAddress.parse(mac))
                    .ipv4((Inet4Address) InetAddress.getByName(ip)).profile(model).attach();
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
