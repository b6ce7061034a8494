package org.roce4j.testkit;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fabrics of the tests running now, so that assertions and {@link QpPair} find the test they
 * run in: by thread (the test's own), else the only one running.
 */
final class ActiveTests {
    private static final ThreadLocal<TestFabric> CURRENT = new ThreadLocal<>();
    private static final Set<TestFabric> RUNNING = ConcurrentHashMap.newKeySet();

    private ActiveTests() {
    }

    static void started(TestFabric fabric) {
        CURRENT.set(fabric);
        RUNNING.add(fabric);
    }

    static void ended(TestFabric fabric) {
        RUNNING.remove(fabric);
        if (CURRENT.get() == fabric) {
            CURRENT.remove();
        }
    }

    /** {@return the test fabric of the calling thread's test, the only running one, or null} */
    static TestFabric current() {
        TestFabric mine = CURRENT.get();
        if (mine != null) {
            return mine;
        }
        var running = RUNNING.toArray(TestFabric[]::new);
        return running.length == 1 ? running[0] : null;
    }
}
