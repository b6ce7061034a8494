package org.roce4j.emulator;

import java.util.concurrent.CountDownLatch;

import org.roce4j.emulator.fabric.Fabric;

/** Another thread holds the fabric lock — as a long duty cycle or API call would — until this is closed. */
final class FabricLockHeld implements AutoCloseable {
    private final CountDownLatch release = new CountDownLatch(1);
    private final Thread holder;

    private FabricLockHeld(Fabric fabric) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        holder = Thread.ofPlatform().start(() -> fabric.locked(() -> {
            held.countDown();
            awaitQuietly(release);
        }));
        held.await();
    }

    /** {@return once another thread holds {@code fabric}'s lock} */
    static FabricLockHeld by(Fabric fabric) throws InterruptedException {
        return new FabricLockHeld(fabric);
    }

    @Override
    public void close() throws InterruptedException {
        release.countDown();
        holder.join();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
