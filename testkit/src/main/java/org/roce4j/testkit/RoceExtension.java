package org.roce4j.testkit;

import java.io.IOException;
import java.lang.reflect.Parameter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.platform.commons.support.AnnotationSupport;
import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Device;

/**
 * The JUnit 5 extension behind {@link EmulatedFabric}: starts the test's fabric before each test,
 * resolves its parameters, and after the test closes everything, reports leaks, and on failure
 * writes the report of {@link FailureReport}. Registered by the annotation; there is no need to
 * name it.
 */
public final class RoceExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver,
        TestExecutionExceptionHandler {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RoceExtension.class);
    private static final String FABRIC_KEY = "fabric";
    /** The report entry (JUnit's {@code publishReportEntry}) that carries a failure's report. */
    public static final String REPORT_ENTRY = "roce4j.report";
    /** The report entry that carries a failed test's seed. */
    public static final String SEED_ENTRY = "roce4j.seed";
    private static final Pattern INVOCATION = Pattern.compile("\\[[a-z-]+-invocation:#(\\d+)]$");

    /** Creates the extension; JUnit does, for {@link EmulatedFabric}. */
    public RoceExtension() {
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        fabricOf(context);
    }

    private TestFabric fabricOf(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        TestFabric existing = store.get(FABRIC_KEY, TestFabric.class);
        if (existing != null) {
            return existing;
        }
        FabricSettings settings = FabricSettings.of(annotation(context));
        Class<?> testClass = context.getRequiredTestClass();
        String className = testClass.getName().substring(testClass.getPackageName().isEmpty() ? 0
                : testClass.getPackageName().length() + 1);
        String testName = testName(context);
        Path capture = settings.pcapDirectory().resolve(safe(className)).resolve(safe(testName) + ".pcap");
        TestFabric fabric = TestFabric.start(settings, className + "." + testName, capture);
        store.put(FABRIC_KEY, fabric);
        ActiveTests.started(fabric);
        return fabric;
    }

    private static EmulatedFabric annotation(ExtensionContext context) {
        Optional<EmulatedFabric> onMethod = context.getTestMethod()
                .flatMap(m -> AnnotationSupport.findAnnotation(m, EmulatedFabric.class));
        if (onMethod.isPresent()) {
            return onMethod.get();
        }
        for (Optional<ExtensionContext> c = Optional.of(context); c.isPresent(); c = c.get().getParent()) {
            Optional<EmulatedFabric> found = c.get().getTestClass()
                    .flatMap(type -> AnnotationSupport.findAnnotation(type, EmulatedFabric.class));
            if (found.isPresent()) {
                return found.get();
            }
        }
        throw new ExtensionConfigurationException("RoceExtension needs @EmulatedFabric on the test method or class");
    }

    /** The method's name, with the invocation number for repeated and parameterized tests. */
    private static String testName(ExtensionContext context) {
        String name = context.getTestMethod().map(java.lang.reflect.Method::getName).orElse(context.getDisplayName());
        Matcher invocation = INVOCATION.matcher(context.getUniqueId());
        return invocation.find() ? name + "-" + invocation.group(1) : name;
    }

    private static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9._$-]", "_");
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == TestFabric.class || type == Fabric.class || type == RdmaNode.class || type == Context.class
                || type == Device.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        TestFabric fabric = fabricOf(context);
        Class<?> type = parameter.getParameter().getType();
        if (type == TestFabric.class) {
            return fabric;
        }
        if (type == Fabric.class) {
            return fabric.fabric();
        }
        int node = sameTypeBefore(parameter);
        if (node >= fabric.nodes().size()) {
            throw new ParameterResolutionException("the fabric has " + fabric.nodes().size() + " nodes, so there is no "
                    + type.getSimpleName() + " number " + (node + 1) + " (@EmulatedFabric(nodes = ...))");
        }
        RdmaNode rdmaNode = fabric.node(node);
        if (type == RdmaNode.class) {
            return rdmaNode;
        }
        if (type == Device.class) {
            return rdmaNode.device();
        }
        return rdmaNode.context();
    }

    /** The k-th parameter of a type gets node k. */
    private static int sameTypeBefore(ParameterContext parameter) {
        Parameter[] all = parameter.getDeclaringExecutable().getParameters();
        Class<?> type = parameter.getParameter().getType();
        int count = 0;
        for (int i = 0; i < parameter.getIndex(); i++) {
            if (all[i].getType() == type) {
                count++;
            }
        }
        return count;
    }

    /** Puts the seed into the failure itself, so that it is in every report of the test, not only the log. */
    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        TestFabric fabric = context.getStore(NAMESPACE).get(FABRIC_KEY, TestFabric.class);
        if (fabric != null) {
            throwable.addSuppressed(new ReplayHint(fabric.settings().seed(), fabric.pcap()));
        }
        throw throwable;
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        TestFabric fabric = context.getStore(NAMESPACE).remove(FABRIC_KEY, TestFabric.class);
        if (fabric == null) {
            return;
        }
        Optional<Throwable> failure = context.getExecutionException();
        List<Throwable> cleanupFailures = new ArrayList<>();
        List<TrackedResource> leaked;
        Map<String, Integer> unacknowledged;
        try {
            cleanupFailures.addAll(fabric.closeHelpers());
            leaked = fabric.tracker().leaked();
            unacknowledged = fabric.tracker().unacknowledgedEvents();
            cleanupFailures.addAll(fabric.tracker().closeEverything());
        } finally {
            fabric.shutDown();
            ActiveTests.ended(fabric);
        }
        if (failure.isPresent()) {
            String report = FailureReport.write(fabric, failure.get(), leaked, unacknowledged);
            System.out.println(report);
            System.out.flush();
            context.publishReportEntry(Map.of(REPORT_ENTRY, report, SEED_ENTRY, Long.toString(fabric.seed())));
            return;
        }
        if (fabric.settings().capture() == Capture.ON_FAILURE) {
            for (Path capture : fabric.captures()) {
                Files.deleteIfExists(capture);
            }
        }
        if (!leaked.isEmpty() || !unacknowledged.isEmpty()) {
            AssertionError leak = new AssertionError(leakMessage(leaked, unacknowledged));
            cleanupFailures.forEach(leak::addSuppressed);
            throw leak;
        }
        if (!cleanupFailures.isEmpty()) {
            AssertionError error = new AssertionError("roce4j testkit: closing the test's verbs objects failed: "
                    + cleanupFailures.getFirst());
            cleanupFailures.forEach(error::addSuppressed);
            throw error;
        }
    }

    static String leakMessage(List<TrackedResource> leaked, Map<String, Integer> unacknowledged) {
        StringBuilder text = new StringBuilder("the test left verbs objects open (the extension closed them):");
        for (TrackedResource resource : leaked) {
            text.append("\n  ").append(resource);
        }
        unacknowledged.forEach((cq, n) -> text.append("\n  ").append(n)
                .append(" completion event(s) got with getCqEvent and not acknowledged (ibv_ack_cq_events) on ")
                .append(cq));
        return text.toString();
    }

    /** Rides along a failure as a suppressed exception: the seed and the capture of the run. */
    static final class ReplayHint extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ReplayHint(long seed, Path pcap) {
            super("roce4j seed " + seed + " (replay: -D" + FabricSettings.SEED_PROPERTY + "=" + seed + "), pcap "
                    + pcap.toAbsolutePath(), null, false, false);
        }
    }
}
