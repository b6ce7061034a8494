package org.roce4j.testkit;

import java.util.Set;

/** Where in the test's code a verbs object was created: the first stack frame outside the machinery. */
final class CreationSite {
    private static final Set<String> MACHINERY = Set.of("java.", "jdk.", "sun.", "com.sun.", "org.roce4j.emulator.",
            "org.roce4j.verbs.", "org.junit.");

    private CreationSite() {
    }

    static String ofCaller() {
        return StackWalker.getInstance().walk(frames -> frames
                .filter(f -> !isMachinery(f.getClassName()))
                .findFirst()
                .map(f -> f.getClassName() + "." + f.getMethodName() + "(" + f.getFileName() + ":" + f.getLineNumber() + ")")
                .orElse("an unknown place"));
    }

    private static boolean isMachinery(String className) {
        if (className.startsWith("org.roce4j.testkit.") && !className.contains("Test")) {
            return true;
        }
        if (className.startsWith("jdk.proxy") || className.startsWith("$Proxy")) {
            return true;
        }
        for (String prefix : MACHINERY) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
