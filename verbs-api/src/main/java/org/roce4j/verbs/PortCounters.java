package org.roce4j.verbs;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A snapshot of one port's hardware counters ({@link Context#queryPortCounters}), as Linux shows
 * them in {@code /sys/class/infiniband/<dev>/ports/<port>/hw_counters/} and {@code rdma statistic}.
 * Counters a provider shares with Linux Soft-RoCE carry rxe's names ({@code rxe_hw_counters.c}:
 * {@code sent_pkts}, {@code rcvd_pkts}, {@code duplicate_request}, …), so code written against one
 * reads the other; a provider may add its own after them.
 *
 * @param portNum the port, from 1
 * @param values every counter by name, in the provider's order; unmodifiable
 */
public record PortCounters(int portNum, Map<String, Long> values) {

    /** Copies the counters, keeping their order (unmodifiable). */
    public PortCounters {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(values, "values")));
    }

    /**
     * {@return one counter's value}
     *
     * @param name the counter's name, e.g. {@code sent_pkts}
     * @throws IllegalArgumentException (EINVAL, as reading a missing hw_counters file) for a name the port does not have
     */
    public long get(String name) {
        Long value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException(Errno.EINVAL + ": port " + portNum + " has no counter named '"
                    + name + "'; it has " + values.keySet());
        }
        return value;
    }

    /** {@return the counters' names, in order} */
    public Set<String> names() {
        return values.keySet();
    }
}
