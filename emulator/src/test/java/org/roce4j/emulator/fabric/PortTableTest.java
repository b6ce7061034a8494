package org.roce4j.emulator.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.roce4j.wire.MacAddress;

class PortTableTest {

    @Test
    void findsEveryPortAmongManyWithSimilarMacsAndNothingElse() {
        PortTable table = new PortTable();
        AttachedPort[] ports = new AttachedPort[300];
        for (int i = 0; i < ports.length; i++) {
            ports[i] = new AttachedPort(null, new MacAddress(0x0200_0000_0000L + i * 256L), (f, o, l, n) -> {});
            table.put(ports[i].mac().value(), ports[i]);
        }

        for (AttachedPort port : ports) {
            assertThat(table.get(port.mac().value())).isSameAs(port);
        }
        assertThat(table.get(0x0200_0000_0001L)).isNull();
        assertThat(table.get(0)).isNull();
        assertThat(table.size()).isEqualTo(300);
    }
}
