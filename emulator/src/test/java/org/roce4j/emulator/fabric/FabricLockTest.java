package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class FabricLockTest {

    @Test
    void isReentrantAsTheCallbacksNeed() {
        FabricLock lock = new FabricLock();
        lock.lock();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void aWaiterThatOutlastsItsSpinBlocksAndStillGetsTheLock() throws InterruptedException {
        FabricLock lock = new FabricLock();
        lock.lock();
        CountDownLatch acquired = new CountDownLatch(1);
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            acquired.countDown();
            lock.unlock();
        });
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!lock.hasQueuedThread(waiter) && System.nanoTime() < end) {
            Thread.sleep(1);
        }
        assertThat(lock.hasQueuedThread(waiter)).as("the waiter parks once its spin is over").isTrue();
        assertThat(acquired.getCount()).isEqualTo(1);
        lock.unlock();
        assertThat(acquired.await(10, TimeUnit.SECONDS)).isTrue();
        waiter.join();
    }

    @Test
    void twoThreadsNeverHoldItTogether() throws InterruptedException {
        FabricLock lock = new FabricLock();
        AtomicBoolean inside = new AtomicBoolean();
        AtomicBoolean overlapped = new AtomicBoolean();
        long[] count = new long[1];
        Runnable work = () -> {
            for (int i = 0; i < 200_000; i++) {
                lock.lock();
                try {
                    if (!inside.compareAndSet(false, true)) {
                        overlapped.set(true);
                    }
                    count[0]++;
                    inside.set(false);
                } finally {
                    lock.unlock();
                }
            }
        };
        Thread first = Thread.ofPlatform().start(work);
        Thread second = Thread.ofPlatform().start(work);
        first.join();
        second.join();
        assertThat(overlapped).isFalse();
        assertThat(count[0]).isEqualTo(400_000);
    }
}
