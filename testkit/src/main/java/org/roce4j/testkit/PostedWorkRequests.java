package org.roce4j.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The work requests a test posted, by QP and wr_id, as text: what an assertion shows next to a
 * completion. The most recent {@code capacity} are remembered; a wr_id reused on a QP shows the
 * latest request.
 */
final class PostedWorkRequests {
    /** One posted work request. */
    record Posted(String device, int qpNum, long wrId, boolean send, String text) {
        @Override
        public String toString() {
            return (send ? "ibv_post_send" : "ibv_post_recv") + String.format(java.util.Locale.ROOT,
                    " on %s QP 0x%06x: ", device, qpNum) + text;
        }
    }

    private record Key(String device, int qpNum, long wrId, boolean send) {
    }

    private final Map<Key, Posted> requests;

    PostedWorkRequests(int capacity) {
        requests = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Posted> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized void record(String device, int qpNum, long wrId, boolean send, String text) {
        Key key = new Key(device, qpNum, wrId, send);
        requests.remove(key);
        requests.put(key, new Posted(device, qpNum, wrId, send, text));
    }

    /**
     * The requests a completion of {@code qpNum} with {@code wrId} may complete: several when two
     * devices have a QP of that number, none when it was not posted through the testkit.
     */
    synchronized List<Posted> find(String deviceOrNull, int qpNum, long wrId, boolean send) {
        List<Posted> found = new ArrayList<>();
        for (Posted posted : requests.values()) {
            if (posted.qpNum() == qpNum && posted.wrId() == wrId && posted.send() == send
                    && (deviceOrNull == null || deviceOrNull.equals(posted.device()))) {
                found.add(posted);
            }
        }
        return found;
    }
}
