package org.roce4j.testing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class RequiredInCiTest {
    @Test
    @DisplayName("a missing requirement fails the test in CI, skips it elsewhere; a present one does neither")
    void missingRequirementFailsInCiOnly() {
        assertThatThrownBy(() -> RequiredInCi.require(false, "tshark", true))
                .isInstanceOf(AssertionFailedError.class).hasMessage("required in CI: tshark");
        assertThatThrownBy(() -> RequiredInCi.require(false, "tshark", false))
                .isInstanceOf(TestAbortedException.class).hasMessageContaining("required in CI: tshark");
        assertThatCode(() -> RequiredInCi.require(true, "tshark", true)).doesNotThrowAnyException();
    }
}
