package org.roce4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.roce4j.verbs.VerbsException;

/**
 * Each example's main, as {@code examples/run} starts it: on the devices of the default provider
 * (the emulator's rxe0 and rxe1 here; -Droce4j.provider=ibverbs on a machine with RDMA devices).
 */
class ExamplesRunTest {

    private static String mainOutput(Consumer<String[]> main, String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            main.accept(args);
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void kvGetRuns() {
        assertThat(mainOutput(KvGetExample::main)).contains("get key-0 = value of key 0", "RDMA READs, no server CPU");
    }

    @Test
    void ringBufferRuns() {
        assertThat(mainOutput(RingBufferExample::main, "--server", "rxe1", "--client", "rxe0"))
                .contains("100 messages through an 8-slot ring");
    }

    @Test
    void udServiceRuns() {
        assertThat(mainOutput(UdServiceExample::main)).contains("20 calls, 20 request datagrams, 20 answers");
    }

    @Test
    void atomicCounterRunsOnOneDeviceToo() {
        assertThat(mainOutput(AtomicCounterExample::main, "--server", "rxe0", "--client", "rxe0"))
                .contains("100 unique tickets, counter = 100");
    }

    @Test
    void blockStoreRuns() {
        assertThat(mainOutput(BlockStoreExample::main)).contains("50 read I/Os", "every byte as written",
                "100 responses by SEND_WITH_INV: 100 reported IBV_WC_WITH_INV", "after the response: REM_ACCESS_ERR");
    }

    @Test
    void anUnknownDeviceIsEnodev() {
        assertThatThrownBy(() -> KvGetExample.main(new String[] {"--server", "mlx5_9"}))
                .isInstanceOf(VerbsException.class).hasMessageContaining("no device mlx5_9 (found [rxe0, rxe1])");
    }
}
