package org.roce4j.emulator.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.CmEventType;
import org.roce4j.cm.CmId;

/** EmulatedCm.recordEvents: the events a host raises, in order, with the id's addresses and the status. */
class EventRecorderTest {

    @Test
    void theRecorderSeesEveryEventTheHostRaisesInOrderWithAddressesAndStatus() {
        try (CmNodes nodes = new CmNodes()) {
            List<RdmaCmHost.RaisedEvent> clientEvents = new ArrayList<>();
            nodes.clientHost.recordEvents(clientEvents::add);
            CmId id = nodes.resolvedClient(9999); // nobody listens there: REJ 8
            id.connect(CmNodes.param(null));
            CmNodes.expect(nodes.client, CmEventType.REJECTED).ack();

            assertThat(clientEvents).extracting(RdmaCmHost.RaisedEvent::type)
                    .containsExactly(CmEventType.ADDR_RESOLVED, CmEventType.ROUTE_RESOLVED, CmEventType.REJECTED);
            RdmaCmHost.RaisedEvent rejected = clientEvents.getLast();
            assertThat(rejected.status()).isEqualTo(8);
            assertThat(rejected.peer()).isEqualTo(CmNodes.socket("10.0.0.1", 9999));
            assertThat(rejected.local().getAddress()).isEqualTo(CmNodes.address("10.0.0.2"));
            assertThat(rejected.atNanos()).isGreaterThanOrEqualTo(clientEvents.getFirst().atNanos());
        }
    }

    @Test
    void aRecorderThatThrowsIsDroppedAndTheEventsStillArrive() {
        try (CmNodes nodes = new CmNodes()) {
            List<CmEventType> seen = new ArrayList<>();
            nodes.clientHost.recordEvents(event -> {
                seen.add(event.type());
                throw new IllegalStateException("a broken recorder");
            });
            nodes.resolvedClient(9999); // ADDR_RESOLVED and ROUTE_RESOLVED still come
            assertThat(seen).containsExactly(CmEventType.ADDR_RESOLVED);
        }
    }
}
