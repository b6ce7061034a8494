package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.emulator.SoftRnic;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.wire.MacAddress;

/**
 * A deterministic fabric replays only with one driving thread: a CQ poll from any other thread
 * is warned about once per fabric, naming that thread (System.Logger, which is java.util.logging
 * here), and never for the thread that drives it.
 */
class SecondDrivingThreadTest {
    private final Logger logger = Logger.getLogger(Fabric.class.getName());
    private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    private final Handler collect = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel() == Level.WARNING && record.getMessage().contains("deterministic fabric")) {
                warnings.add(record);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Fabric fabric = Fabric.deterministic();
    private Context context;
    private Cq cq;

    @BeforeEach
    void openACq() throws Exception {
        logger.addHandler(collect);
        SoftRnic rnic = SoftRnic.builder(fabric).name("rxe0").mac(MacAddress.parse("02:00:00:00:00:01"))
                .ipv4((Inet4Address) InetAddress.getByName("10.0.0.1")).attach();
        context = rnic.device().open();
        cq = context.createCq(16);
    }

    @AfterEach
    void close() {
        logger.removeHandler(collect);
        cq.close();
        context.close();
        fabric.close();
    }

    @Test
    @DisplayName("the thread that drives the deterministic fabric polls it as often as it likes: no warning")
    void theDrivingThreadIsNeverWarned() {
        for (int i = 0; i < 3; i++) {
            assertThat(cq.poll()).isEmpty();
        }
        fabric.runUntilIdle();
        assertThat(warnings).isEmpty();
    }

    @Test
    @DisplayName("a CQ poll from a thread that does not drive the deterministic fabric is warned once per fabric, naming it")
    void aSecondPollingThreadIsWarnedOnceByName() throws Exception {
        assertThat(cq.poll()).isEmpty(); // this thread drives the fabric from now on
        poll("application-poller-1", 3);
        poll("application-poller-2", 1);
        assertThat(cq.poll()).isEmpty();

        assertThat(warnings).hasSize(1);
        assertThat(warnings.getFirst().getMessage())
                .contains("thread \"application-poller-1\"", "\"" + Thread.currentThread().getName() + "\" drives",
                        "docs/testkit.md, \"Which fabric\"")
                .doesNotContain("application-poller-2");
    }

    private void poll(String threadName, int times) throws InterruptedException {
        Thread poller = Thread.ofPlatform().name(threadName).start(() -> {
            for (int i = 0; i < times; i++) {
                cq.poll();
            }
        });
        poller.join();
    }
}
