package org.roce4j.wire.mad;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** rdma_cm's service IDs, cma.c rdma_get_service_id: (port space << 16) + port. */
class ServiceIdTest {

    @ParameterizedTest(name = "port space 0x{0}, port {1}: 0x{2}")
    @CsvSource({
        "0106, 7174, 0000000001061c06",  // rping's REQ in rxe_rping_cm.pcap
        "06,   7174, 0000000001061c06",  // the byte alone names the same space
        "0111, 7174, 0000000001111c06",  // udaddy's SIDR_REQ in rxe_udaddy_sidr.pcap
        "11,   9999, 000000000111270f",
        "013f, 1,    00000000013f0001",  // RDMA_IB_IP_PS_IB
        "0002, 80,   0000000000020050",  // RDMA_PS_IPOIB has no 0x01 in front
    })
    void serviceIdsAreRdmaGetServiceIds(String portSpace, int port, String serviceId) {
        long id = ServiceId.of(Integer.parseInt(portSpace, 16), port);
        assertThat(id).isEqualTo(Long.parseUnsignedLong(serviceId, 16));
        assertThat(ServiceId.port(id)).isEqualTo(port);
        assertThat(ServiceId.isRdmaCm(id)).isTrue();
    }

    @Test
    @DisplayName("portSpace and port give back what of was given, for every port of every space")
    void portSpaceAndPortRoundTrip() {
        int[] spaces = {ServiceId.PS_IPOIB, ServiceId.PS_TCP, ServiceId.PS_UDP, ServiceId.PS_IB};
        qt().forAll(integers().between(0, 3), integers().between(0, 0xFFFF)).checkAssert((space, port) -> {
            long id = ServiceId.of(spaces[space], port);
            assertThat(ServiceId.portSpace(id)).isEqualTo(spaces[space]);
            assertThat(ServiceId.port(id)).isEqualTo(port);
        });
    }

    @Test
    @DisplayName("A service ID with bits above the port space, or an unknown port space, is not rdma_cm's")
    void otherServiceIdsAreNotRdmaCm() {
        assertThat(ServiceId.isRdmaCm(0x1000000001061c06L)).isFalse();
        assertThat(ServiceId.isRdmaCm(0x0000000001071c06L)).isFalse();
        assertThat(ServiceId.isRdmaCm(0x0000000000061c06L)).isFalse();
    }

    @Test
    @DisplayName("A port space rdma_cm does not have, or a port beyond 16 bits, is refused")
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> ServiceId.of(0x0107, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServiceId.of(0x07, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServiceId.of(ServiceId.PS_TCP, 0x10000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServiceId.of(ServiceId.PS_TCP, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
