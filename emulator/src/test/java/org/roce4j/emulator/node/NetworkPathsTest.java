package org.roce4j.emulator.node;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;

class NetworkPathsTest {

    private static final Gid SOURCE = Gid.parse("::ffff:10.0.0.1");
    private static final Gid PEER = Gid.parse("::ffff:10.0.0.2");
    private static final AhAttr TO_PEER = AhAttr.of(PEER, 1, 1);

    private final NetworkPaths paths = new NetworkPaths();

    private static AhAttr av(Gid destination, int flowLabel, int hopLimit, int trafficClass) {
        return new AhAttr(destination, 1, flowLabel, hopLimit, trafficClass, 0, 1);
    }

    @Test
    void addressVectorsThatResolveAlikeShareOnePath() {
        NetworkPath first = paths.get(SOURCE, TO_PEER, path -> false);
        NetworkPath second = paths.get(SOURCE, AhAttr.of(PEER, 1, 1), path -> false);

        assertThat(second).isSameAs(first);
        assertThat(first.destinationIp).containsExactly(10, 0, 0, 2);
    }

    @Test
    void anyFieldThatGoesOnTheWireMakesAPathOfItsOwn() {
        NetworkPath plain = paths.get(SOURCE, TO_PEER, path -> false);

        assertThat(paths.get(SOURCE, av(PEER, 7, 64, 0), path -> false)).isNotSameAs(plain);
        assertThat(paths.get(SOURCE, av(PEER, 0, 64, 0x20), path -> false)).isNotSameAs(plain);
        Gid linkLocal = Gid.parse("fe80::2");
        assertThat(paths.get(SOURCE, av(linkLocal, 0, 1, 0), path -> false))
                .isNotSameAs(paths.get(SOURCE, av(linkLocal, 0, 2, 0), path -> false));
        assertThat(paths.get(Gid.parse("::ffff:10.0.0.9"), TO_PEER, path -> false)).isNotSameAs(plain);
        assertThat(paths.get(SOURCE, AhAttr.of(Gid.parse("::ffff:10.0.0.3"), 1, 1), path -> false)).isNotSameAs(plain);
        assertThat(paths.get(SOURCE, TO_PEER, path -> false)).as("still shared after the others").isSameAs(plain);
    }

    @Test
    void aStalePathIsReplacedForTheNewUserAndTheOldOneLeftToItsOwn() {
        NetworkPath old = paths.get(SOURCE, TO_PEER, path -> false);
        old.destinationMac = 0x0200_0000_0002L;

        NetworkPath fresh = paths.get(SOURCE, TO_PEER, path -> path == old);

        assertThat(fresh).isNotSameAs(old);
        assertThat(fresh.destinationMac).isEqualTo(-1);
        assertThat(old.destinationMac).isEqualTo(0x0200_0000_0002L);
        assertThat(paths.get(SOURCE, TO_PEER, path -> false)).isSameAs(fresh);
    }

    @Test
    void aFullTableStartsAgainAndKeepsSharing() {
        NetworkPath first = paths.get(SOURCE, TO_PEER, path -> false);
        for (int label = 1; label <= NetworkPaths.MAX_PATHS; label++) {
            paths.get(SOURCE, av(PEER, label, 64, 0), path -> false);
        }
        NetworkPath again = paths.get(SOURCE, TO_PEER, path -> false);

        assertThat(again).isNotSameAs(first);
        assertThat(paths.get(SOURCE, TO_PEER, path -> false)).isSameAs(again);
    }
}
