package org.roce4j.emulator.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Posters ring, the duty cycle answers: each queue once per answer, in the order they rang, and no ring lost. */
class DoorbellsTest {

    private record Queue(String name, Doorbells.Doorbell<Queue>[] bell, AtomicLong posted, AtomicLong seen) {
        @SuppressWarnings("unchecked")
        static Queue named(String name) {
            Queue queue = new Queue(name, new Doorbells.Doorbell[1], new AtomicLong(), new AtomicLong());
            queue.bell[0] = new Doorbells.Doorbell<>(queue);
            return queue;
        }

        Doorbells.Doorbell<Queue> doorbell() {
            return bell[0];
        }
    }

    @Test
    @DisplayName("a doorbell rung twice before the answer is answered once, and the answer goes in the order they rang")
    void answeredOnceInRingOrder() {
        Doorbells<Queue> doorbells = new Doorbells<>();
        Queue first = Queue.named("first");
        Queue second = Queue.named("second");
        Queue third = Queue.named("third");
        assertThat(doorbells.pending()).isFalse();

        assertThat(doorbells.ring(second.doorbell())).isTrue();
        assertThat(doorbells.ring(first.doorbell())).isTrue();
        assertThat(doorbells.ring(second.doorbell())).as("rung already, not yet answered").isFalse();
        assertThat(doorbells.ring(third.doorbell())).isTrue();
        assertThat(doorbells.pending()).isTrue();

        List<String> answered = new ArrayList<>();
        assertThat(doorbells.answer(q -> answered.add(q.name()))).isEqualTo(3);
        assertThat(answered).containsExactly("second", "first", "third");
        assertThat(doorbells.pending()).isFalse();
        assertThat(doorbells.answer(q -> answered.add(q.name()))).isZero();

        assertThat(doorbells.ring(second.doorbell())).as("answered: it rings again").isTrue();
        answered.clear();
        doorbells.answer(q -> answered.add(q.name()));
        assertThat(answered).containsExactly("second");
    }

    @Test
    @Timeout(60)
    @DisplayName("four threads publish and ring 200,000 times each while one answers: the last answer sees every publication")
    void noRingIsLost() throws Exception {
        Doorbells<Queue> doorbells = new Doorbells<>();
        List<Queue> queues = new ArrayList<>();
        List<Thread> ringers = new ArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        for (int t = 0; t < 4; t++) {
            Queue queue = Queue.named("q" + t);
            queues.add(queue);
            ringers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 200_000; i++) {
                    queue.posted().incrementAndGet(); // the post publishes, then rings
                    doorbells.ring(queue.doorbell());
                }
            }));
        }
        Thread answerer = Thread.ofPlatform().start(() -> {
            while (!done.get() || doorbells.pending()) {
                doorbells.answer(q -> q.seen().set(q.posted().get()));
            }
        });
        for (Thread ringer : ringers) {
            ringer.join();
        }
        done.set(true);
        answerer.join();
        for (Queue queue : queues) {
            assertThat(queue.seen().get()).as(queue.name()).isEqualTo(200_000);
        }
    }
}
