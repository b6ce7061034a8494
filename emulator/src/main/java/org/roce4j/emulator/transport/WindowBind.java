package org.roce4j.emulator.transport;

import org.roce4j.emulator.verbs.MemoryWindow;

/**
 * What a BIND_MW work request binds (rxe's {@code wqe->wr.wr.mw}), kept apart from {@link SendWqe} so that the
 * WQE every other opcode fills and reads stays small; a slot makes its own once, on its first BIND_MW, and reuses
 * it.
 */
final class WindowBind {
    MemoryWindow window;
    /** The window's rkey as the handle held it at post time. */
    int windowRkey;
    /** The rkey the window gets. */
    int newRkey;
    /** The region it binds to (its lkey, 0 for none), and the range and rights it grants. */
    int regionLkey;
    long address;
    long length;
    int access;
}
