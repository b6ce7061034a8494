package org.roce4j.ibverbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.EventChannel;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;
import org.roce4j.testing.RequiredInCi;

/**
 * The librdmacm binding where there is no RDMA device (the build machines): the library loads with
 * every function the backend calls, its errno passes through as the VerbsException's, and without the
 * library the CM says why and is ENOSYS. What needs a device runs in conformance on rxe0.
 */
class RdmacmWithoutDeviceTest {
    private static final Discovery IBVERBS = Discovery.discover(LibIbverbs.DEFAULT_LIBRARY);

    private static CmRuntime loaded() {
        CmRuntime.Loaded loaded = CmRuntime.load(LibRdmacm.DEFAULT_LIBRARY, IBVERBS);
        RequiredInCi.require(loaded.runtime() != null, "librdmacm.so.1 is not installed: " + loaded.whyNot());
        return loaded.runtime();
    }

    @Test
    void rdmaEventStrNamesEveryEventTypeAsTheApiDoes() {
        LibRdmacm cm = loaded().cm;
        for (CmEventType type : CmEventType.values()) {
            assertThat(cm.eventName(type.value())).as("rdma_event_str(%d)", type.value()).isEqualTo(type.cName());
        }
    }

    @Test
    void aMissingLibrdmacmMakesCreateEventChannelEnosysAndSaysWhy() {
        IbverbsProvider provider = new IbverbsProvider(
                () -> CmRuntime.load("librdmacm-not-installed.so.1", IBVERBS));
        assumeThat(IBVERBS.library()).as("libibverbs is installed").isNotNull();
        assertThat(provider.whyNoConnectionManager())
                .startsWith("librdmacm-not-installed.so.1 not found: ")
                .endsWith("(Debian/Ubuntu: apt-get install librdmacm1)")
                .doesNotContain("\n");
        VerbsException refused = catchThrowableOfType(VerbsException.class, provider::createEventChannel);
        assertThat(refused.errno()).isEqualTo(Errno.ENOSYS);
        assertThat(refused.getMessage()).contains("rdma_create_event_channel: " + provider.whyNoConnectionManager());
    }

    @Test
    void aMissingLibibverbsIsWhatTheCmSaysToo() {
        Discovery none = Discovery.discover("libibverbs-not-installed.so.1");
        CmRuntime.Loaded loaded = CmRuntime.load(LibRdmacm.DEFAULT_LIBRARY, none);
        assertThat(loaded.runtime()).isNull();
        assertThat(loaded.whyNot()).isEqualTo("librdmacm.so.1 needs libibverbs: " + none.diagnostic());
    }

    /** librdmacm's ERR(e) is -1 with errno e: rdma_ack_cm_event(NULL) is ERR(EINVAL) (cma.c). */
    @Test
    void aCallReturningMinusOneThrowsTheErrnoLibrdmacmSet() {
        LibRdmacm cm = loaded().cm;
        VerbsException refused = catchThrowableOfType(VerbsException.class,
                () -> LibIbverbs.status("rdma_ack_cm_event", cm.ackCmEvent, MemorySegment.NULL));
        assertThat(refused.errno()).isEqualTo(Errno.EINVAL);
        assertThat(refused.getMessage()).endsWith("rdma_ack_cm_event failed (errno 22)");
    }

    /**
     * createEventChannel is rdma_create_event_channel: it fails exactly when the C call does, with
     * the C call's errno (ENODEV on a kernel without RDMA devices), checked against a C program.
     */
    @Test
    void createEventChannelFailsWithTheErrnoTheCCallGives(@TempDir Path dir) throws Exception {
        CmRuntime runtime = loaded();
        String c = RdmacmLayoutsMatchGccTest.RDMA_CMA.compileAndRun("""
                #include <errno.h>
                #include <stdio.h>
                #include <rdma/rdma_cma.h>
                int main(void) {
                    struct rdma_event_channel *channel = rdma_create_event_channel();
                    printf("%d\\n", channel ? 0 : errno);
                    if (channel) rdma_destroy_event_channel(channel);
                    return 0;
                }
                """, "-lrdmacm", dir).trim();
        int cErrno = Integer.parseInt(c);
        IbverbsProvider provider = new IbverbsProvider(() -> new CmRuntime.Loaded(runtime, ""));
        if (cErrno == 0) {
            try (EventChannel channel = provider.createEventChannel()) {
                assertThat(channel).isInstanceOf(IbvEventChannel.class);
            }
        } else {
            VerbsException refused = catchThrowableOfType(VerbsException.class, provider::createEventChannel);
            assertThat(refused.errno().number()).as("errno").isEqualTo(cErrno);
            assertThat(refused.getMessage()).endsWith("rdma_create_event_channel failed (errno " + cErrno + ")");
        }
    }

    @Test
    void withoutRdmaDevicesTheCmSaysSoButStillCallsLibrdmacm() {
        assumeThat(IBVERBS.library() != null && IBVERBS.devices().isEmpty()
                && !Files.exists(Path.of("/sys/class/infiniband_verbs")))
                .as("libibverbs and a kernel without RDMA (like the build machines)").isTrue();
        CmRuntime.Loaded loaded = CmRuntime.load(LibRdmacm.DEFAULT_LIBRARY, IBVERBS);
        assumeThat(loaded.runtime()).isNotNull();
        assertThat(loaded.whyNot()).isEqualTo("librdmacm.so.1 loaded, but " + IBVERBS.diagnostic());
        VerbsException refused = catchThrowableOfType(VerbsException.class,
                new IbverbsProvider(() -> loaded)::createEventChannel);
        assertThat(refused.errno()).isEqualTo(Errno.ENODEV);
    }
}
