package org.roce4j.verbs;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a device can do with on-demand paging (ODP) regions: {@code struct ibv_odp_caps} of
 * {@code ibv_query_device_ex}. A device without ODP reports every set empty.
 *
 * @param generalCaps {@code general_caps}: whether ODP exists at all, and implicit ODP
 * @param rcCaps      {@code per_transport_caps.rc_odp_caps}: the operations an RC QP may use an ODP region for
 * @param ucCaps      {@code per_transport_caps.uc_odp_caps}
 * @param udCaps      {@code per_transport_caps.ud_odp_caps}
 */
public record OdpCaps(Set<General> generalCaps, Set<Transport> rcCaps, Set<Transport> ucCaps, Set<Transport> udCaps) {
    /** A device without on-demand paging: every word 0. */
    public static final OdpCaps NONE = new OdpCaps(Set.of(), Set.of(), Set.of(), Set.of());

    /** Keeps unmodifiable copies. */
    public OdpCaps {
        generalCaps = copy(generalCaps, General.class);
        rcCaps = copy(rcCaps, Transport.class);
        ucCaps = copy(ucCaps, Transport.class);
        udCaps = copy(udCaps, Transport.class);
    }

    /** {@return whether the device has on-demand paging ({@code IBV_ODP_SUPPORT})} */
    public boolean supported() {
        return generalCaps.contains(General.SUPPORT);
    }

    private static <E extends Enum<E>> Set<E> copy(Set<E> set, Class<E> type) {
        return Collections.unmodifiableSet(set.isEmpty() ? EnumSet.noneOf(type) : EnumSet.copyOf(set));
    }

    /** {@code enum ibv_odp_general_caps}. */
    public enum General {
        /** {@code IBV_ODP_SUPPORT}: ODP regions can be registered. */
        SUPPORT(1),
        /** {@code IBV_ODP_SUPPORT_IMPLICIT}: one region over the whole address space ({@link Pd#regImplicitOdpMr}). */
        SUPPORT_IMPLICIT(1 << 1);

        private final int bit;

        General(int bit) {
            this.bit = bit;
        }

        /** {@return the bit in {@code general_caps}} */
        public int bit() {
            return bit;
        }

        /**
         * {@return the caps of a {@code general_caps} word; bits no constant names are left out}
         *
         * @param bits the word
         */
        public static Set<General> of(long bits) {
            EnumSet<General> caps = EnumSet.noneOf(General.class);
            for (General cap : values()) {
                if ((bits & cap.bit) != 0) {
                    caps.add(cap);
                }
            }
            return caps;
        }
    }

    /** {@code enum ibv_odp_transport_cap_bits}: an operation a QP of a transport may use an ODP region for. */
    public enum Transport {
        /** {@code IBV_ODP_SUPPORT_SEND}: the SGEs of SEND work requests. */
        SEND(1),
        /** {@code IBV_ODP_SUPPORT_RECV}: the SGEs of receive work requests. */
        RECV(1 << 1),
        /** {@code IBV_ODP_SUPPORT_WRITE}: the target of incoming RDMA WRITEs. */
        WRITE(1 << 2),
        /** {@code IBV_ODP_SUPPORT_READ}: the source of incoming RDMA READs. */
        READ(1 << 3),
        /** {@code IBV_ODP_SUPPORT_ATOMIC}: the target of incoming atomics. */
        ATOMIC(1 << 4),
        /** {@code IBV_ODP_SUPPORT_SRQ_RECV}: the SGEs of SRQ receives. */
        SRQ_RECV(1 << 5),
        /** {@code IBV_ODP_SUPPORT_FLUSH}: the target of incoming FLUSHes. */
        FLUSH(1 << 6),
        /** {@code IBV_ODP_SUPPORT_ATOMIC_WRITE}: the target of incoming ATOMIC WRITEs. */
        ATOMIC_WRITE(1 << 7);

        private final int bit;

        Transport(int bit) {
            this.bit = bit;
        }

        /** {@return the bit in a {@code *_odp_caps} word} */
        public int bit() {
            return bit;
        }

        /**
         * {@return the caps of a {@code *_odp_caps} word; bits no constant names are left out}
         *
         * @param bits the word
         */
        public static Set<Transport> of(int bits) {
            EnumSet<Transport> caps = EnumSet.noneOf(Transport.class);
            for (Transport cap : values()) {
                if ((bits & cap.bit) != 0) {
                    caps.add(cap);
                }
            }
            return caps;
        }
    }
}
