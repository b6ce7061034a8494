package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * roce4j mckey, a receiver and a sender in two threads on the emulator's default fabric, joined with
 * the emulator's rdma_cm: mckey.c's lines and return status.
 */
class McKeyTest {
    @Test
    @DisplayName("mckey -m 239.1.1.1 -C 10 -S 100: the receiver (rxe0) and a sender (rxe1) join, each prints the "
            + "group's GID ::ffff:239.1.1.1, the sender's ten SENDs to the group reach the receiver, return status 0")
    void receiverAndSender() throws Exception {
        CmToolRuns.Pair run = CmToolRuns.pair(new String[] {"mckey", "-m", "239.1.1.1", "-b", "10.0.0.1", "--settle", "0"},
                null, "mckey", "-m", "239.1.1.1", "-b", "10.0.0.2", "-s", "--settle", "0");

        assertThat(run.client().exit()).as(run.client().toString()).isZero();
        assertThat(run.server().exit()).as(run.server().toString()).isZero();
        assertThat(run.server().lines()).containsExactly("mckey: starting server", "mckey: joining",
                "mckey: joined dgid: ::ffff:239.1.1.1 mlid 0x0 sl 0", "receiving data transfers",
                "data transfers complete", "test complete", "return status 0");
        assertThat(run.client().lines()).containsExactly("mckey: starting client", "mckey: joining",
                "mckey: joined dgid: ::ffff:239.1.1.1 mlid 0x0 sl 0", "initiating data transfers",
                "data transfers complete", "test complete", "return status 0");
        assertThat(run.client().err()).isEmpty();
        assertThat(run.server().err()).isEmpty();
    }

    @Test
    @DisplayName("mckey -o: a send-only member's sends reach a full member; mckey -c 2: two ids each join and each "
            + "receives the ten messages")
    void sendOnlySenderAndTwoReceivingIds() throws Exception {
        CmToolRuns.Pair run = CmToolRuns.pair(new String[] {"mckey", "-m", "239.1.1.2", "-b", "10.0.0.1", "-c", "2",
                "--settle", "0"}, null, "mckey", "-m", "239.1.1.2", "-b", "10.0.0.2", "-s", "-o", "--settle", "0");

        assertThat(run.client().exit()).as(run.client().toString()).isZero();
        assertThat(run.server().exit()).as(run.server().toString()).isZero();
        assertThat(run.server().lines()).filteredOn(line -> line.startsWith("mckey: joined")).hasSize(2);
        assertThat(run.server().lines()).contains("data transfers complete", "return status 0");
    }

    @Test
    @DisplayName("mckey -m ff0e::1 on RoCEv2: rdma_join_multicast fails (cma.c: ENOTSUPP), 'mckey: failure joining', and "
            + "the leave of a group never joined makes the return status -1")
    void anIpv6GroupCannotBeJoined() {
        CmToolRuns.Result run = CmToolRuns.run("mckey", "-m", "ff0e::1", "-b", "10.0.0.2", "--settle", "0");

        assertThat(run.errLines()).as(run.toString()).containsExactly("mckey: failure joining: Unknown error 524",
                "mckey: failure leaving: Cannot assign requested address");
        assertThat(run.lines().getLast()).isEqualTo("return status -1");
        assertThat(run.exit()).isEqualTo(255);
    }
}
