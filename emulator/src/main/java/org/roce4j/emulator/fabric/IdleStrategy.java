package org.roce4j.emulator.fabric;

/** How a threaded fabric's event loop waits when it has nothing to do (Aeron's name for the choice). */
public enum IdleStrategy {
    /**
     * Spins for about 20 µs before it parks: an in-process fabric whose loop moves every frame answers
     * a post in a microsecond instead of the tens a parked thread takes to wake on a virtual machine.
     */
    SPIN_THEN_PARK,
    /**
     * Parks at once: for a fabric whose frames come from other threads that need the CPU (a UDP link's
     * event loop), where a spinning loop would take it from them.
     */
    PARK
}
