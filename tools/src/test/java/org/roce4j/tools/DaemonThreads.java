package org.roce4j.tools;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The threads the two-role peer tests run server and client in: daemons, so a hung role cannot keep the JVM. */
final class DaemonThreads {
    private DaemonThreads() {}

    static ExecutorService named(String name) {
        return Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, name);
            thread.setDaemon(true);
            return thread;
        });
    }
}
