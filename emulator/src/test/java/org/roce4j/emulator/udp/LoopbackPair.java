package org.roce4j.emulator.udp;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Two UDP devices for a whole test class: rxe0 on 127.0.0.2 and rxe1 on 127.0.0.3, default link settings. */
abstract class LoopbackPair {
    static UdpSide a;
    static UdpSide b;

    @BeforeAll
    static void open() throws Exception {
        a = new UdpSide("rxe0", "127.0.0.2", UdpLinkConfig.DEFAULT);
        b = new UdpSide("rxe1", "127.0.0.3", UdpLinkConfig.DEFAULT);
    }

    @AfterAll
    static void close() {
        UdpSide.closeAll(a, b);
    }
}
