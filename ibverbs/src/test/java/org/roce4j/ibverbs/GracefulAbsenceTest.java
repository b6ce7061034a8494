package org.roce4j.ibverbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Verbs;
import org.roce4j.verbs.VerbsException;

/**
 * Without RDMA the provider lists no device and says why, in one line, without throwing: no
 * libibverbs, or a kernel without RDMA (libibverbs answers ENOSYS, as on the build machines).
 */
class GracefulAbsenceTest {

    @Test
    void theProviderIsFoundByServiceLoaderUnderItsName() {
        assertThat(Verbs.provider(IbverbsProvider.NAME)).get().isInstanceOf(IbverbsProvider.class);
    }

    @Test
    void aMissingLibraryGivesNoDevicesAndSaysWhatToInstall() {
        Discovery discovery = Discovery.discover("libibverbs-not-installed.so.1");
        assertThat(discovery.devices()).isEmpty();
        assertThat(discovery.library()).isNull();
        assertThat(discovery.diagnostic())
                .startsWith("no RDMA devices: libibverbs-not-installed.so.1 could not be loaded")
                .contains("apt-get install libibverbs1 ibverbs-providers")
                .doesNotContain("\n");
    }

    @Test
    void aKernelWithoutRdmaGivesNoDevicesAndSaysEnosys() {
        assumeThat(Discovery.discover(LibIbverbs.DEFAULT_LIBRARY).library() != null
                && !Files.exists(Path.of("/sys/class/infiniband_verbs")))
                .as("this machine has libibverbs and a kernel without RDMA (like the build machines)").isTrue();
        IbverbsProvider provider = new IbverbsProvider();
        assertThat(provider.devices()).isEmpty();
        assertThat(provider.isAvailable()).isFalse();
        assertThat(IbverbsProvider.diagnostic())
                .isEqualTo("no RDMA devices: ibv_get_device_list failed with ENOSYS (Function not implemented): "
                        + "this kernel has no RDMA support (no /sys/class/infiniband_verbs); run on a Linux host with "
                        + "an RNIC or Soft-RoCE (modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0)");
    }

    @Test
    void anUnavailableProviderIsSkippedWhenNoneIsNamed() {
        assumeThat(new IbverbsProvider().isAvailable()).isFalse();
        assertThat(Verbs.devices()).noneMatch(d -> d.providerName().equals(IbverbsProvider.NAME));
    }

    @Test
    void namingAnUnavailableProviderIsEnodevWithTheDiagnostic() {
        assumeThat(new IbverbsProvider().isAvailable()).isFalse();
        String before = System.getProperty(Verbs.PROVIDER_PROPERTY);
        System.setProperty(Verbs.PROVIDER_PROPERTY, IbverbsProvider.NAME);
        try {
            VerbsException refused = catchThrowableOfType(VerbsException.class, Verbs::provider);
            assertThat(refused.errno()).isEqualTo(Errno.ENODEV);
            assertThat(refused.getMessage()).contains("Verbs provider 'ibverbs' is not available here: "
                    + IbverbsProvider.diagnostic());
            assertThat(new IbverbsProvider().whyUnavailable()).isEqualTo(IbverbsProvider.diagnostic());
        } finally {
            if (before == null) {
                System.clearProperty(Verbs.PROVIDER_PROPERTY);
            } else {
                System.setProperty(Verbs.PROVIDER_PROPERTY, before);
            }
        }
    }
}
