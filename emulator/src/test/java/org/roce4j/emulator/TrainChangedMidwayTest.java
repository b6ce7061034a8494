package org.roce4j.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.EnumSet;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpAttr;
import org.roce4j.verbs.QpAttrMask;
import org.roce4j.verbs.QpState;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.SendWr;

/**
 * Issue 17: a train's next packet is placed without the responder's full checks when nothing they read changed
 * since the packet before ({@code Responder.placeNextOfTrain}). Between two packets of a train a verbs call
 * changes what they read; the run must be the one a tap gives (a tap turns trains off, so every packet takes the
 * full checks): the same steps, counters, completions, QP states and bytes. (The source region deregistered on the
 * way is not among the changes: a tap makes every frame carry its payload, so there the WRITE completes by design —
 * {@code PayloadByReferenceTest}.)
 */
class TrainChangedMidwayTest {
    private static final int MESSAGE = 40 * 1024; // 40 packets of 1 KiB: trains of 15 and 16, then the rest

    /** What happens after the responder has received the WRITE's first five packets. */
    enum Change {
        NOTHING,
        RESPONDER_QP_TO_ERROR,
        REMOTE_WRITE_TAKEN_FROM_THE_RESPONDER_QP,
        TARGET_REGION_DEREGISTERED,
        REQUESTER_QP_TO_ERROR
    }

    @ParameterizedTest
    @EnumSource(Change.class)
    void aChangeBetweenTwoPacketsOfATrainIsSeenAsByEveryPacket(Change change, @TempDir Path dir) {
        ObservedRun withTap = run(change, dir.resolve("trains-off.pcap"));
        ObservedRun withoutTap = run(change, null);

        assertThat(withoutTap).usingRecursiveComparison().isEqualTo(withTap);
        assertThat(withoutTap.countersB().get(RnicCounter.FRAMES_RECEIVED)).as("the change came mid-train")
                .isGreaterThan(5);
        if (change == Change.NOTHING) {
            assertThat(withoutTap.completions()).singleElement().asString().contains("SUCCESS");
        } else {
            assertThat(withoutTap.completions()).noneMatch(text -> text.contains("SUCCESS"));
        }
    }

    /**
     * A UC QP of A connected, by mistake, to B's RC QP: its WRITE's packets reach that QP between the trains of
     * the RC WRITE in progress there, and are dropped for their transport — each of them, the train's later ones
     * too, though their headers are those of a packet before and the RC message is still open.
     */
    @org.junit.jupiter.api.Test
    void aTrainTheResponderDidNotTakeIsNotPlacedIntoItsMessage(@TempDir Path dir) {
        ObservedRun withTap = runWithAMisdirectedTrain(dir.resolve("trains-off.pcap"));
        ObservedRun withoutTap = runWithAMisdirectedTrain(null);

        assertThat(withoutTap).usingRecursiveComparison().isEqualTo(withTap);
        assertThat(withoutTap.countersB().get(RnicCounter.DROPPED_WRONG_TRANSPORT)).isEqualTo(MESSAGE / 1024);
        assertThat(withoutTap.completions()).anySatisfy(text -> assertThat(text).contains("wr_id=1 SUCCESS"));
        byte[] sent = new byte[MESSAGE];
        for (int i = 0; i < MESSAGE; i++) {
            sent[i] = (byte) (i * 7 + (i >>> 10));
        }
        assertThat(withoutTap.target()).isEqualTo(sent);
    }

    private static ObservedRun runWithAMisdirectedTrain(Path tap) {
        try (TwoNodes nodes = ObservedRun.nodes(tap)) {
            for (long i = 0; i < 2L * MESSAGE; i++) {
                nodes.a.memory.set(ValueLayout.JAVA_BYTE, i, i < MESSAGE ? (byte) (i * 7 + (i >>> 10)) : (byte) 0x5a);
            }
            Qp[] rc = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            Qp uc = nodes.a.createQp(QpType.UC, 16);
            TwoNodes.connect(uc, rc[1].qpNum(), nodes.b.gid(), 200, 100, Mtu.MTU_1024); // PSNs as the RC QP's
            long b = nodes.b.mr.address();
            int rkey = nodes.b.mr.rkey();
            rc[0].postSend(SendWr.rdmaWrite(1, nodes.a.mr, 0, MESSAGE, b, rkey));
            uc.postSend(SendWr.rdmaWrite(2, nodes.a.mr, MESSAGE, MESSAGE, b, rkey));
            return ObservedRun.finish(nodes, 0, nodes.b.memory.asSlice(0, MESSAGE), rc[0], rc[1], uc);
        }
    }

    private static ObservedRun run(Change change, Path tap) {
        try (TwoNodes nodes = ObservedRun.nodes(tap)) {
            for (long i = 0; i < MESSAGE; i++) {
                nodes.a.memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + (i >>> 10)));
            }
            Mr source = nodes.a.pd.regMr(nodes.a.memory.asSlice(0, MESSAGE), TwoNodes.ALL_ACCESS);
            Mr target = nodes.b.pd.regMr(nodes.b.memory.asSlice(0, MESSAGE), TwoNodes.ALL_ACCESS);
            Qp[] pair = nodes.connectedPair(QpType.RC, Mtu.MTU_1024);
            pair[0].postSend(SendWr.rdmaWrite(1, source, 0, MESSAGE, target.address(), target.rkey()));
            int steps = 0;
            while (nodes.rnicB.counter(RnicCounter.FRAMES_RECEIVED) < 5 && nodes.fabric.step()) {
                steps++;
            }
            switch (change) {
                case NOTHING -> { }
                case RESPONDER_QP_TO_ERROR -> pair[1].modify(new QpAttr().qpState(QpState.ERR));
                case REMOTE_WRITE_TAKEN_FROM_THE_RESPONDER_QP -> pair[1].modify(
                        new QpAttr().qpAccessFlags(EnumSet.of(AccessFlag.LOCAL_WRITE)), EnumSet.of(QpAttrMask.ACCESS_FLAGS));
                case TARGET_REGION_DEREGISTERED -> target.close();
                case REQUESTER_QP_TO_ERROR -> pair[0].modify(new QpAttr().qpState(QpState.ERR));
            }
            return ObservedRun.finish(nodes, steps, nodes.b.memory.asSlice(0, MESSAGE), pair);
        }
    }
}
