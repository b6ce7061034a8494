package org.roce4j.examples;

import static org.roce4j.testkit.RoceAssertions.assertThat;
import static org.roce4j.testkit.RoceAssertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;

import org.junit.jupiter.api.Test;
import org.roce4j.emulator.DeviceProfile;
import org.roce4j.testkit.EmulatedFabric;
import org.roce4j.testkit.TestFabric;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;

class KvGetExampleTest {

    @Test
    @EmulatedFabric(drop = 0.1, duplicate = 0.05, reorder = 0.1, corrupt = 0.02, profile = DeviceProfile.RXE_6_12)
    void everyStoredKeyReadsBackAndAMissingOneIsNotFoundUnderFaults(TestFabric fabric, Context server, Context client) {
        // Three rounds: over 100 frames, so that the random plan surely loses some, whatever the seed.
        for (int round = 0; round < 3; round++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long reads = KvGetExample.run(server, client, new PrintStream(out, true, StandardCharsets.UTF_8));

            assertThat(reads).isGreaterThanOrEqualTo(11);
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("get key-7 = value of key 7", "get no-such-key = (none)");
        }
        assertThat(fabric.fabric().faultCounters().dropped()).isPositive();
    }

    @Test
    @EmulatedFabric(drop = 0.1)
    void keysThatCollideAreFoundByProbingAndTheServersQpRefusesAWrite(TestFabric fabric, Context serverContext,
                                                                        Context clientContext) {
        try (Endpoint serverSide = new Endpoint(serverContext, 16); Endpoint clientSide = new Endpoint(clientContext, 16)) {
            KvServer server = new KvServer(serverSide, 4, 8, 8);
            for (int i = 0; i < 4; i++) {
                server.put("k" + i, new byte[] {(byte) i, 1, 2});
            }
            assertThatThrownBy(() -> server.put("k9", new byte[1])).hasMessage("the table is full");
            Qp serverQp = server.acceptQp();
            Qp clientQp = RcConnection.create(clientSide, QpCap.of(4, 4), EnumSet.noneOf(AccessFlag.class));
            RcConnection.connect(serverQp, 10, new RcConnection.Address(clientQp.qpNum(), 20, clientSide.gid()), Mtu.MTU_256, 1);
            RcConnection.connect(clientQp, 20, new RcConnection.Address(serverQp.qpNum(), 10, serverSide.gid()), Mtu.MTU_256, 1);
            KvClient client = new KvClient(clientSide, clientQp, server.table());

            for (int i = 0; i < 4; i++) {
                assertThat(client.get("k" + i)).hasValueSatisfying(v -> assertThat(v).containsExactly(v[0], 1, 2));
            }
            assertThat(client.get("absent")).isEmpty();
            // Every slot is full: a missing key costs a READ of each.
            assertThat(client.reads()).isGreaterThan(4 + 3);

            // The server's QP allows remote READ only: its responder refuses a WRITE as an invalid
            // request (IBTA 9.7.5.1.3 and rxe's check_op_valid), before looking at the memory. No
            // faults from here: were the NAK lost, the responder (now in ERR) would ignore the
            // retransmissions and the requester would end in RETRY_EXC_ERR instead.
            fabric.faults(fabric.seededFaults());
            clientQp.postSend(org.roce4j.verbs.SendWr.rdmaWrite(99, clientSide.register(8, EnumSet.of(AccessFlag.LOCAL_WRITE)),
                    0, 8, server.table().address(), server.table().rkey()));
            assertThat(clientSide.cq()).hasCompletions(org.roce4j.verbs.WcStatus.REM_INV_REQ_ERR);
            assertThat(clientQp).isInState(org.roce4j.verbs.QpState.ERR);
        }
    }
}
