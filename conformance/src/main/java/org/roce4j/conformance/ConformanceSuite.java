package org.roce4j.conformance;

import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.discovery.ClassNameFilter;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.roce4j.verbs.Device;

/**
 * Runs the conformance suite (this package's {@code *Test} and {@code *Properties} classes, JUnit 5)
 * on given devices, in this JVM, and reports each behaviour as it completes. This is what
 * {@code roce4j conformance -d DEVICE} does; the build runs the same tests on the emulator through
 * surefire.
 */
public final class ConformanceSuite {
    private static final String PACKAGE = ConformanceSuite.class.getPackageName();
    private static final String INVOCATION_SEGMENT = "test-template-invocation";

    private ConformanceSuite() {
    }

    /**
     * Runs the suite with two contexts on {@code device} (loopback, as on one real RNIC).
     *
     * @param only     a regular expression a test's {@code Class#method(ParameterTypes)} must contain a
     *                 match of, or null for every test
     * @param progress gets each outcome's line as the test completes
     */
    public static ConformanceReport run(Device device, Departures departures, String only, Consumer<String> progress) {
        return run(device, device, departures, only, progress);
    }

    /** As {@link #run(Device, Departures, String, Consumer)}, the second side of each test on {@code second}. */
    public static ConformanceReport run(Device first, Device second, Departures departures, String only,
                                        Consumer<String> progress) {
        Objects.requireNonNull(departures, "departures");
        ConformanceReport report = new ConformanceReport(departures, only == null);
        // The devices travel in this run's own launcher session: two runs at once each test their own.
        try (LauncherSession session = LauncherFactory.openSession()) {
            Backend.on(first, second).storeIn(session.getStore());
            session.getLauncher().execute(request(only), new Recorder(report, progress));
        }
        return report;
    }

    private static LauncherDiscoveryRequest request(String only) {
        var request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectPackage(PACKAGE))
                .filters(ClassNameFilter.includeClassNamePatterns(".*Test", ".*Properties"))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false");
        if (only != null) {
            Pattern wanted = Pattern.compile(only);
            request.filters((PostDiscoveryFilter) descriptor -> methodOf(descriptor)
                    .map(method -> FilterResult.includedIf(wanted.matcher(method).find()))
                    .orElse(FilterResult.included("not a test method")));
        }
        return request.build();
    }

    private static java.util.Optional<String> methodOf(TestDescriptor descriptor) {
        return descriptor.getSource().filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                .map(ConformanceSuite::methodId);
    }

    /** {@code Class#method(ParameterTypes)}, types by simple name, as the departure lists name tests. */
    static String methodId(MethodSource method) {
        String parameters = Arrays.stream(method.getMethodParameterTypes().split(","))
                .map(String::strip).filter(type -> !type.isEmpty())
                .map(type -> type.substring(Math.max(type.lastIndexOf('.'), type.lastIndexOf('$')) + 1))
                .collect(Collectors.joining(", "));
        return simpleName(method.getClassName()) + "#" + method.getMethodName() + "(" + parameters + ")";
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** The {@code CHECK: OBSERVED} of the failure, when it (or what it wraps) is a check's unexpected outcome. */
    static java.util.Optional<String> unexpectedOutcome(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof Expect.UnexpectedOutcome unexpected) {
                return java.util.Optional.of(unexpected.outcome());
            }
        }
        return java.util.Optional.empty();
    }

    /**
     * Turns JUnit's events into the report's outcomes. A test method of the plan that produced no outcome
     * at all (no invocation ran, nothing reported it skipped) is recorded as a FAIL when the plan ends:
     * a run never silently holds fewer tests than it selected.
     */
    private static final class Recorder implements TestExecutionListener {
        private final ConformanceReport report;
        private final Consumer<String> progress;
        private final Map<String, TestIdentifier> planned = new LinkedHashMap<>();
        private final Set<String> methodsSeen = new HashSet<>();
        private TestPlan plan;

        Recorder(ConformanceReport report, Consumer<String> progress) {
            this.report = report;
            this.progress = progress;
        }

        @Override
        public void testPlanExecutionStarted(TestPlan testPlan) {
            plan = testPlan;
            for (TestIdentifier root : testPlan.getRoots()) {
                testPlan.getDescendants(root).forEach(identifier -> identifier.getSource()
                        .filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                        .ifPresent(method -> planned.putIfAbsent(methodId(method), identifier)));
            }
        }

        @Override
        public void testPlanExecutionFinished(TestPlan testPlan) {
            planned.forEach((method, identifier) -> {
                if (!methodsSeen.contains(method)) {
                    record(identifier, false, false, "planned but never ran", null);
                }
            });
        }

        @Override
        public void executionSkipped(TestIdentifier identifier, String reason) {
            if (identifier.isTest()) {
                record(identifier, false, true, "skipped: " + reason, null);
            } else {
                plan.getDescendants(identifier).stream().filter(TestIdentifier::isTest)
                        .forEach(test -> record(test, false, true, "skipped: " + reason, null));
                // A skipped class or template is reported: its methods did not silently vanish.
                plan.getDescendants(identifier).forEach(descendant -> methodOf(descendant).ifPresent(methodsSeen::add));
                methodOf(identifier).ifPresent(methodsSeen::add);
            }
        }

        @Override
        public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
            if (identifier.isTest() && result.getStatus() == TestExecutionResult.Status.ABORTED) {
                // An assumption the device's own answer failed (it reports no ATOMIC WRITE, it refuses completion
                // timestamps): a feature it does not have is SKIPPED with the reason, never a failure.
                record(identifier, false, true, "skipped: " + result.getThrowable().map(Recorder::oneLine).orElse(""),
                        null);
                return;
            }
            boolean passed = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
            // A container fails on its own when its set-up does (a class that cannot start, a
            // parameterized test whose arguments cannot be made): that is a failure of its tests.
            if (identifier.isTest() || !passed) {
                record(identifier, passed, false, result.getThrowable().map(Recorder::oneLine).orElse(""),
                        result.getThrowable().flatMap(ConformanceSuite::unexpectedOutcome).orElse(null));
            }
        }

        private void record(TestIdentifier identifier, boolean passed, boolean skipped, String failure, String observed) {
            methodOf(identifier).ifPresent(methodsSeen::add);
            var outcome = report.record(testId(identifier), behaviour(identifier), passed, skipped, failure, observed);
            progress.accept(outcome.line());
        }

        private static java.util.Optional<String> methodOf(TestIdentifier identifier) {
            return identifier.getSource().filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                    .map(ConformanceSuite::methodId);
        }

        private String testId(TestIdentifier identifier) {
            String id = identifier.getSource().map(source -> switch (source) {
                case MethodSource method -> methodId(method);
                case ClassSource type -> simpleName(type.getClassName());
                default -> identifier.getDisplayName();
            }).orElse(identifier.getDisplayName());
            // An invocation by its name (the parameter values), not its position: an index shifts when a
            // parameter table changes, and a departure list would then name another test.
            var last = identifier.getUniqueIdObject().getLastSegment();
            return last.getType().equals(INVOCATION_SEGMENT) ? id + "[" + identifier.getDisplayName() + "]" : id;
        }

        private String behaviour(TestIdentifier identifier) {
            String name = identifier.getDisplayName();
            UniqueId.Segment last = identifier.getUniqueIdObject().getLastSegment();
            if (last.getType().equals(INVOCATION_SEGMENT)) {
                // The template's own name, unless it is only JUnit's default "method(Types)".
                String template = plan.getParent(identifier).map(TestIdentifier::getDisplayName).orElse("");
                name = template.contains(" ") ? template + " [" + name + "]" : name;
            }
            String className = identifier.getSource().map(source -> switch (source) {
                case MethodSource method -> simpleName(method.getClassName());
                case ClassSource type -> simpleName(type.getClassName());
                default -> "";
            }).orElse("");
            return className.isEmpty() || className.equals(name) ? name : className + ": " + name;
        }

        private static String oneLine(Throwable failure) {
            String message = failure.getMessage() == null ? failure.toString() : failure.getMessage();
            String line = message.strip().replaceAll("\\s+", " ");
            return line.length() > 200 ? line.substring(0, 200) + "…" : line;
        }
    }
}
