package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.wire.MacAddress;

/**
 * The suite on an emulated device with an rxe profile fails exactly the tests its departures list names
 * (rxe-6.1.txt, rxe-6.12.txt: what rxe0 fails on that kernel), each with the listed outcome, and passes
 * every other: the twin check of ibverbs/run-in-vm (conformance/twin-check) without a VM, against the
 * list instead of a fresh report of the real device. An rxe device acts for a process with CAP_NET_RAW, as
 * the VM's root does (note [13]).
 */
class ProfileTwinTest {
    /** The suite's own tests, which the package selection would also find here: not part of the suite. */
    private static final String SUITE_ONLY =
            "^(?!ProfileTwinTest|ConformanceReportTest|ConformanceSuiteTest|DeparturesTest|CompletionsTest|BackendTest)";

    /** The tests of ODP regions, which a device reporting no IBV_ODP_SUPPORT skips (rxe before kernel 6.14). */
    private static final Set<String> ODP_REGION_TESTS = Set.of("OdpTest#rcSendAndReceiveThroughOnDemandRegions()",
            "OdpTest#rcRdmaWithAnOnDemandRegion(Transport)[WRITE]", "OdpTest#rcRdmaWithAnOnDemandRegion(Transport)[READ]",
            "OdpTest#rcAtomicOnAnOnDemandRegion()", "OdpTest#prefetchInsideOnDemandRegionsSucceeds(AdviseMrAdvice)[PREFETCH]",
            "OdpTest#prefetchInsideOnDemandRegionsSucceeds(AdviseMrAdvice)[PREFETCH_WRITE]",
            "OdpTest#prefetchInsideOnDemandRegionsSucceeds(AdviseMrAdvice)[PREFETCH_NO_FAULT]",
            "OdpTest#prefetchWithoutRangesIsEinval()", "OdpTest#prefetchOfAnUnknownLkeyIsEinval()",
            "OdpTest#prefetchOfARegionWithoutLocalWriteIsEinval()", "OdpTest#prefetchPastTheRegion()");

    /**
     * What each profile's device says it does not have, so the suite skips it (as on rxe0): kernel 6.1 reports
     * no ATOMIC WRITE in device_cap_flags_ex; neither kernel reports ODP in odp_caps; rdma-core 44's rxe gives
     * no completion timestamps.
     */
    private static final Map<DeviceProfile, Set<String>> SKIPPED = Map.of(
            DeviceProfile.RXE_6_1, union(ODP_REGION_TESTS, "AtomicWriteTest#atomicWriteIsOrderedWithTheSendsAfterIt()",
                    "AtomicWriteTest#atomicWriteStoresEightBytes()", "AtomicWriteTest#misalignedAddress()",
                    "AtomicWriteTest#pastTheEndOfTheRegion()", "AtomicWriteTest#qpWithoutRemoteWrite()",
                    "AtomicWriteTest#regionWithoutRemoteWrite()",
                    "OpcodeTest#everyAllowedOpcode(QpType, WrOpcode)[RC ATOMIC_WRITE]",
                    "ExtendedCqTest#completionTimestampsDoNotGoBack()", "FlushTest#flushRightsAtRegistration()",
                    "FlushTest#flushAfterWritesOfItsRange()", "FlushTest#levelMrIgnoresAddressAndLength()",
                    "FlushTest#persistentFlushToAGlobalRegion()", "FlushTest#rangePastTheRegion()",
                    "FlushTest#regionWithoutFlushGlobal()", "FlushTest#qpWithoutFlushGlobal()",
                    "OpcodeTest#everyAllowedOpcode(QpType, WrOpcode)[RC FLUSH]"),
            // rdma-core 44 has no ibv_wr_flush: its rxe provider refuses IBV_QP_EX_WITH_FLUSH (the registration runs).
            DeviceProfile.RXE_6_12, union(ODP_REGION_TESTS, "ExtendedCqTest#completionTimestampsDoNotGoBack()",
                    "FlushTest#flushAfterWritesOfItsRange()", "FlushTest#levelMrIgnoresAddressAndLength()",
                    "FlushTest#persistentFlushToAGlobalRegion()", "FlushTest#rangePastTheRegion()",
                    "FlushTest#regionWithoutFlushGlobal()", "FlushTest#qpWithoutFlushGlobal()",
                    "OpcodeTest#everyAllowedOpcode(QpType, WrOpcode)[RC FLUSH]"));

    private static Set<String> union(Set<String> some, String... more) {
        Set<String> all = new TreeSet<>(some);
        all.addAll(Set.of(more));
        return all;
    }

    @ParameterizedTest
    @EnumSource(names = {"RXE_6_1", "RXE_6_12"})
    @DisplayName("an rxe profile fails exactly its list's tests, each with the listed outcome, and passes every other")
    void rxeProfileFailsExactlyItsList(DeviceProfile profile) throws Exception {
        Departures list = Departures.forProfile(profile.id());
        assertThat(list.name()).isEqualTo(profile.id());
        ConformanceReport report = runOn(profile, list, true);
        assertThat(verdicts(report, ConformanceReport.Verdict.FAIL)).as("failures the list does not explain").isEmpty();
        assertThat(verdicts(report, ConformanceReport.Verdict.DEPARTURE)).isEqualTo(new TreeSet<>(list.tests().keySet()));
        assertThat(report.conforms(true)).isTrue();
    }

    @Test
    @DisplayName("the linux profile, for an unprivileged process, has no list and passes every test")
    void linuxPassesEverything() throws Exception {
        ConformanceReport report = runOn(DeviceProfile.LINUX, Departures.forProfile(DeviceProfile.LINUX.id()), false);
        assertThat(verdicts(report, ConformanceReport.Verdict.FAIL)).isEmpty();
        assertThat(verdicts(report, ConformanceReport.Verdict.DEPARTURE)).isEmpty();
    }

    private static Set<String> verdicts(ConformanceReport report, ConformanceReport.Verdict verdict) {
        Set<String> ids = new TreeSet<>();
        for (ConformanceReport.Outcome outcome : report.outcomes()) {
            if (outcome.verdict() == verdict) {
                ids.add(outcome.testId());
            }
        }
        return ids;
    }

    private static ConformanceReport runOn(DeviceProfile profile, Departures list, boolean capNetRaw) throws Exception {
        SoftRnic rnic = SoftRnic.builder(Fabric.deterministic()).name("rxe0")
                .mac(MacAddress.parse("02:00:00:00:00:01"))
                .ipv4((Inet4Address) InetAddress.getByName("10.0.0.1")).profile(profile).capNetRaw(capNetRaw).attach();
        ConformanceReport report = ConformanceSuite.run(rnic.device(), list, SUITE_ONLY, line -> { });
        assertThat(report.ran()).as("the whole suite ran").isGreaterThan(400);
        assertThat(verdicts(report, ConformanceReport.Verdict.SKIPPED)).as("tests skipped on the device's own answer")
                .isEqualTo(SKIPPED.getOrDefault(profile, Set.of()));
        return report;
    }
}
