package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.PortCounters;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.VerbsException;
import org.roce4j.wire.DropReason;

/** Context.queryPortCounters: rxe's hw_counters names and order, roce4j's extras, one source with SoftRnic.counters(). */
class PortCountersTest {
    /** rxe_hw_counters.c, rxe_counter_descs[], in order. */
    private static final List<String> RXE_NAMES = List.of("sent_pkts", "rcvd_pkts", "duplicate_request",
            "out_of_seq_request", "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err",
            "retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs");

    private final TwoNodes nodes = new TwoNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    @DisplayName("the counters begin with rxe's hw_counters in rxe's order, then roce4j's extras and drops by reason")
    void namesAndOrder() {
        PortCounters counters = nodes.a.context.queryPortCounters(1);
        assertThat(counters.portNum()).isEqualTo(1);
        assertThat(List.copyOf(counters.names()).subList(0, RXE_NAMES.size())).isEqualTo(RXE_NAMES);
        assertThat(counters.names()).contains("local_ack_timeouts", "retransmitted_pkts", "icrc_errors",
                "dropped_unknown_qp", "dropped_bad_icrc", "dropped_truncated_bth");
        assertThat(counters.values()).allSatisfy((name, value) -> assertThat(value).as(name).isZero());
    }

    @Test
    @DisplayName("an unknown counter name is EINVAL (IllegalArgumentException); port 2 is EINVAL (VerbsException)")
    void unknownNameAndPort() {
        PortCounters counters = nodes.a.context.queryPortCounters(1);
        assertThatThrownBy(() -> counters.get("no_such_counter"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("EINVAL").hasMessageContaining("no_such_counter");
        assertThatThrownBy(() -> nodes.a.context.queryPortCounters(2))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThatThrownBy(() -> counters.values().put("x", 1L)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @DisplayName("the port counters and SoftRnic.counters()/dropped() are the same numbers, after real traffic")
    void oneSourceOfTruth() {
        Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
        nodes.fabric.filter(new FaultScript().dropNth(1, FaultScript.requestFromA(101)));
        pair[1].postRecv(RecvWr.of(1, nodes.b.mr, 0, 8192));
        pair[0].postSend(SendWr.send(1, nodes.a.mr, 0, 3000));
        assertThat(nodes.a.pollAll()).hasSize(1);
        assertThat(nodes.b.pollAll()).hasSize(1);

        for (TwoNodes.Side side : List.of(nodes.a, nodes.b)) {
            PortCounters port = side.context.queryPortCounters(1);
            Map<RnicCounter, Long> rnic = side.rnic.counters();
            rnic.forEach((counter, value) -> assertThat(port.get(counter.portCounterName())).as(counter.name()).isEqualTo(value));
            for (DropReason reason : DropReason.values()) {
                String name = "dropped_" + reason.name().toLowerCase();
                if (reason.appliesToRoceV2()) {
                    assertThat(port.get(name)).isEqualTo(side.rnic.dropped(reason));
                } else {
                    assertThat(port.values()).as("an RNIC parses RoCEv2 only").doesNotContainKey(name);
                }
            }
        }
        PortCounters a = nodes.a.context.queryPortCounters(1);
        PortCounters b = nodes.b.context.queryPortCounters(1);
        assertThat(a.get("sent_pkts")).isEqualTo(3 + 2); // 3 packets, 2 resent after the NAK
        assertThat(b.get("rcvd_pkts")).isEqualTo(4); // 100, 102 (NAKed), 101, 102
        assertThat(b.get("sent_pkts")).isEqualTo(2); // the NAK and the ACK
        assertThat(a.get("rcvd_pkts")).isEqualTo(2);
        assertThat(a.get("ack_deferred")).isEqualTo(2);
        assertThat(a.get("rcvd_seq_err")).isEqualTo(1);
        assertThat(b.get("out_of_seq_request")).isEqualTo(1);
        assertThat(a.get("rdma_sends")).isEqualTo(1);
        assertThat(b.get("rdma_recvs")).isEqualTo(1);
        assertThat(a.get("retransmitted_pkts")).isEqualTo(2);
    }
}
