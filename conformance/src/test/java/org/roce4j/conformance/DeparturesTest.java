package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.Verbs;

class DeparturesTest {
    @Test
    @DisplayName("rxe 6.1's list: every line parses, names a test and a note the list explains")
    void rxeListParses() {
        Departures rxe = Departures.named("rxe-6.1");
        assertThat(rxe.tests()).hasSizeGreaterThan(10);
        assertThat(rxe.of("QpStateMachineTest#requiredAndOptionalSucceed(Transition)[UC SQD->SQD]")).hasValueSatisfying(d -> {
            assertThat(d.outcome()).isEqualTo("modify UC SQD->SQD: EINVAL");
            assertThat(d.note()).isEqualTo("[2]");
        });
        assertThat(rxe.tests().keySet()).as("RESET -> ERR is EINVAL on every Linux device: no departure of rxe")
                .noneMatch(id -> id.contains("RESET->ERR"));
        assertThat(rxe.tests().keySet()).as("tests named by their parameter values, never an invocation index")
                .noneMatch(id -> id.matches(".*\\[\\d+\\]"));
        assertThat(rxe.of("RemoteAccessProperties#rcBadRemoteAccessFailsAndChangesNothing()"))
                .as("no blanket entry: the property accepts rxe's refusal at post").isEmpty();
        rxe.tests().values().forEach(d -> assertThat(rxe.notes()).as(d.testId()).containsKey(d.note()));
        assertThat(rxe.notes().get("[2]")).startsWith("[2] UC SQD->SQD with the optional attributes");
    }

    @Test
    @DisplayName("a line without three fields, or without CHECK: OBSERVED, is refused with its line number")
    void malformedLineIsRefused() {
        assertThatThrownBy(() -> Departures.parse("mine", List.of("# [1] why", "SomeTest#x() | only two")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("mine:2:");
        assertThatThrownBy(() -> Departures.parse("mine", List.of("SomeTest#x() | says no | [1]")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CHECK: OBSERVED");
    }

    @Test
    @DisplayName("no blanket entries: a '?' line and a test listed twice are refused")
    void blanketAndDuplicateEntriesAreRefused() {
        assertThatThrownBy(() -> Departures.parse("mine", List.of("?SomeTest#x() | status of wr_id 1: LOC_QP_OP_ERR | [1]")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("mine:1: '?'");
        assertThatThrownBy(() -> Departures.parse("mine", List.of("SomeTest#x() | the call: EINVAL | [1]",
                "SomeTest#x() | the call: ENOMEM | [1]"))).hasMessage("mine:2: SomeTest#x() is listed twice");
    }

    @Test
    @DisplayName("an unknown list name is refused, naming the known ones")
    void unknownListIsRefused() {
        assertThatThrownBy(() -> Departures.named("mlx5")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("known: rxe-6.1, rxe-6.12");
    }

    @Test
    @DisplayName("the emulator's devices get their profile's list, not rxe's although they report rxe's vendor_id")
    void emulatorHasItsProfilesList() {
        assertThat(Departures.forDevice(Verbs.provider("emulator").orElseThrow().devices().getFirst()).name())
                .isEqualTo("none");
        assertThat(Departures.forProfile("linux").name()).isEqualTo("none");
        assertThat(Departures.forProfile("rxe-6.12").name()).isEqualTo("rxe-6.12");
    }

    @Test
    @DisplayName("a real rxe gets the list of its kernel's profile: the newest not newer than the kernel, the oldest below all")
    void rxeListFollowsTheKernel() {
        assertThat(Departures.rxeProfileOf("6.1.0-56-amd64")).isEqualTo("rxe-6.1");
        assertThat(Departures.rxeProfileOf("6.8.0-45-generic")).isEqualTo("rxe-6.1");
        assertThat(Departures.rxeProfileOf("6.12.57+deb13-amd64")).isEqualTo("rxe-6.12");
        assertThat(Departures.rxeProfileOf("6.17.1")).isEqualTo("rxe-6.12");
        assertThat(Departures.rxeProfileOf("5.15.0-1-generic")).isEqualTo("rxe-6.1");
        assertThat(Departures.rxeProfileOf("")).isEqualTo("rxe-6.1");
    }

    @ParameterizedTest
    @EnumSource(names = {"RXE_6_1", "RXE_6_12"})
    @DisplayName("a profile's list is its description: its notes name exactly the profile's Quirks")
    void aListNamesExactlyItsProfilesQuirks(DeviceProfile profile) {
        Set<Quirk> named = EnumSet.noneOf(Quirk.class);
        Matcher m = QUIRK_NAME.matcher(String.join(" ", Departures.forProfile(profile.id()).notes().values()));
        while (m.find()) {
            named.add(Quirk.valueOf(m.group(1)));
        }
        assertThat(named).isEqualTo(profile.model().quirks());
    }

    @Test
    @DisplayName("every profile with quirks has its list, under its id, and the kernel lookup knows each rxe one")
    void everyProfileWithQuirksHasItsList() {
        for (DeviceProfile profile : DeviceProfile.values()) {
            if (!profile.model().quirks().isEmpty()) {
                assertThat(Departures.forProfile(profile.id()).name()).isEqualTo(profile.id());
                String series = profile.id().substring("rxe-".length());
                assertThat(Departures.rxeProfileOf(series + ".0-1-amd64")).as(profile.id()).isEqualTo(profile.id());
            }
        }
    }

    private static final Pattern QUIRK_NAME = Pattern.compile("Quirk\\.([A-Z0-9_]+)");
}
