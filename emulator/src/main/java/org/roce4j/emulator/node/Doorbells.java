package org.roce4j.emulator.node;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The doorbells of an RNIC's queues: many application threads ring, the RNIC's duty cycle answers (rdma-core's
 * rxe provider rings the kernel after {@code rxe_post_send} has written the queue, and the kernel runs the QP's
 * requester task). A lock-free stack of the queues rung since the last answer, each on it at most once, that
 * the duty cycle takes whole and answers in the order they rang. Ringing allocates nothing.
 *
 * @param <T> what a doorbell belongs to
 */
public final class Doorbells<T> {

    /** One queue's doorbell. */
    public static final class Doorbell<T> {
        private static final VarHandle RUNG;

        static {
            try {
                RUNG = MethodHandles.lookup().findVarHandle(Doorbell.class, "rung", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final T owner;
        /** Set by the ring that puts it on the stack, cleared by the answer (before the owner is answered). */
        private volatile boolean rung;
        /** The doorbell rung before it: written by the ringer before it publishes, read by the answer. */
        private Doorbell<T> below;

        public Doorbell(T owner) {
            this.owner = owner;
        }
    }

    private final AtomicReference<Doorbell<T>> top = new AtomicReference<>();

    /**
     * Rings after a post has published its work. {@return whether this ring put the doorbell on the stack} — false
     * when it was rung and not yet answered: the answer still to come sees this post's work too, because it
     * clears the doorbell before it looks at the queue, and the post published before it looked at the doorbell.
     */
    public boolean ring(Doorbell<T> bell) {
        if (bell.rung || !Doorbell.RUNG.compareAndSet(bell, false, true)) {
            return false;
        }
        Doorbell<T> below;
        do {
            below = top.get();
            bell.below = below;
        } while (!top.compareAndSet(below, bell));
        return true;
    }

    /** {@return whether a doorbell rang since the last answer} */
    public boolean pending() {
        return top.get() != null;
    }

    /** Answers every doorbell rung so far, in the order they rang; {@return how many} Single consumer. */
    public int answer(Consumer<T> answer) {
        // A plain read first: most duty cycles find no doorbell, and the exchange is a full fence that waits for
        // every store before it (a frame's bytes) to drain. A ring after the read is answered by the next cycle,
        // as one after the exchange would be.
        Doorbell<T> stack = top.get() == null ? null : top.getAndSet(null);
        Doorbell<T> inOrder = null;
        while (stack != null) {
            Doorbell<T> below = stack.below;
            stack.below = inOrder;
            inOrder = stack;
            stack = below;
        }
        int answered = 0;
        while (inOrder != null) {
            Doorbell<T> next = inOrder.below;
            inOrder.below = null;
            inOrder.rung = false; // from here a post rings again; the answer below reads what it published
            answer.accept(inOrder.owner);
            inOrder = next;
            answered++;
        }
        return answered;
    }
}
