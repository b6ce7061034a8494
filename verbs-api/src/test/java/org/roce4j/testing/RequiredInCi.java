package org.roce4j.testing;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine (../shared's reference captures, tshark, gcc, IPv6 loopback): in CI
 * ({@code CI=true}, which {@code .ci/run} exports) a missing requirement fails the test; on a developer's
 * machine the test aborts (counted as skipped) and says so on stderr. One copy of the rule, in
 * verbs-api's test jar, which the other modules' tests depend on.
 */
public final class RequiredInCi {
    private RequiredInCi() {
    }

    /** {@return true when this run is CI's: the environment has {@code CI=true}} */
    public static boolean inCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }

    /**
     * Continues when {@code present}; else fails in CI and aborts elsewhere.
     *
     * @param missing what is missing and what did not run because of it
     */
    public static void require(boolean present, String missing) {
        require(present, missing, inCi());
    }

    static void require(boolean present, String missing, boolean inCi) {
        if (present) {
            return;
        }
        String message = "required in CI: " + missing;
        if (inCi) {
            fail(message);
        }
        System.err.println("\n*** SKIPPED: " + message + " ***\n");
        Assumptions.abort(message);
    }
}
