package org.roce4j.emulator.node;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Gid;

/**
 * The paths an RNIC has built, shared by the QPs and AHs whose address vectors resolve alike: a path is
 * read by every frame a QP sends and receives, and at 10,000 QPs to one peer one shared path stays in
 * the cache where 10,000 of their own (each with its two address arrays) miss it (bench/RESULTS.md,
 * "one path per destination"). Paths are immutable but for the MAC they resolve on first use; a shared
 * one whose MAC the neighbour table no longer gives is replaced, so a new QP resolves afresh as it
 * would with a path of its own. Not thread-safe: the fabric lock guards it.
 */
final class NetworkPaths {

    /** Past this many, the table starts again: the QPs keep their paths, new ones are shared anew. */
    static final int MAX_PATHS = 4096;

    private record Key(Gid source, Gid destination, int trafficClass, int hopLimit, int flowLabel) {
    }

    private final Map<Key, NetworkPath> paths = new HashMap<>();

    /** {@return the shared path from {@code source} along {@code av}, built if none is or if {@code stale} says it is} */
    NetworkPath get(Gid source, AhAttr av, Predicate<NetworkPath> stale) {
        Key key = new Key(source, av.dgid(), av.trafficClass(), av.hopLimit(), av.flowLabel());
        NetworkPath path = paths.get(key);
        if (path == null || stale.test(path)) {
            if (paths.size() >= MAX_PATHS) {
                paths.clear();
            }
            path = new NetworkPath(source, av);
            paths.put(key, path);
        }
        return path;
    }
}
