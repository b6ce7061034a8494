package org.roce4j.testkit;

/** One verbs object a test created, what it is, and where the test created it. */
final class TrackedResource {
    private final Object target;
    private final String description;
    private final String creationSite;
    private volatile boolean open = true;
    private volatile boolean ownedByTestkit;

    TrackedResource(Object target, String description, String creationSite) {
        this.target = target;
        this.description = description;
        this.creationSite = creationSite;
    }

    /** The backend's object. */
    Object target() {
        return target;
    }

    String description() {
        return description;
    }

    boolean isOpen() {
        return open;
    }

    boolean isOwnedByTestkit() {
        return ownedByTestkit;
    }

    void markOwnedByTestkit() {
        ownedByTestkit = true;
    }

    void markClosed() {
        open = false;
    }

    @Override
    public String toString() {
        return description + " (created at " + creationSite + ")";
    }
}
