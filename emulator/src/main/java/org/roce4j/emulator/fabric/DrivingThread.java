package org.roce4j.emulator.fabric;

/**
 * Which thread drives a deterministic fabric, and the one warning when another thread drives it
 * too. Virtual time replays only when the order of calls does: one thread's calls have one order,
 * but two application threads polling (a CQ poll, a CM event wait, both of which run the fabric)
 * interleave as the scheduler pleases, so the run is neither reproducible nor fast — each poll
 * runs the whole fabric under its lock while the other thread waits. The first thread that runs
 * the fabric is its driver (in a testkit test, the test's thread); the first other thread that
 * runs it is named in a {@link System.Logger} warning, once per fabric. Under the fabric lock.
 */
final class DrivingThread {
    /** Where the table of fabrics says which one suits application threads. */
    static final String WHICH_FABRIC = "docs/testkit.md, \"Which fabric\"";
    private static final System.Logger LOG = System.getLogger(Fabric.class.getName());

    private Thread driver;
    private boolean warned;

    /** Called by every run of the fabric from outside its own dispatch: allocation-free once warned. */
    void running(Thread current) {
        if (driver == null) {
            driver = current;
        } else if (current != driver && !warned) {
            warned = true;
            LOG.log(System.Logger.Level.WARNING, warning(current, driver));
        }
    }

    static String warning(Thread other, Thread driver) {
        return "thread \"" + other.getName() + "\" runs a deterministic fabric that thread \"" + driver.getName()
                + "\" drives: with more than one thread polling, virtual time does not replay and every poll"
                + " waits for the others'; for application threads use a THREADED or UDP fabric (see "
                + WHICH_FABRIC + "). Said once per fabric.";
    }
}
