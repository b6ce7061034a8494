package org.roce4j.emulator.verbs;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.Quirk;

/**
 * How many entries a queue asked for {@code n} gets on a device: exactly {@code n} by default (IBTA
 * 11.2.4.1: at least what was asked), 2^k - 1 on a device with
 * {@link Quirk#QUEUE_DEPTH_ROUNDED_TO_POWER_OF_TWO_MINUS_ONE} (rxe). One rule for send, receive and
 * shared receive queues and completion queues, at creation and at resize.
 */
final class QueueDepths {
    private QueueDepths() {
    }

    static int granted(DeviceModel model, int asked) {
        if (asked <= 0 || !model.has(Quirk.QUEUE_DEPTH_ROUNDED_TO_POWER_OF_TWO_MINUS_ONE)) {
            return asked;
        }
        // rxe_queue.c rxe_queue_init: num_slots = roundup_pow_of_two(n + 1); *num_elem = num_slots - 1
        int slots = Integer.highestOneBit(asked) << 1;   // the power of two above n, which n + 1 rounds up to
        return slots - 1;
    }
}
