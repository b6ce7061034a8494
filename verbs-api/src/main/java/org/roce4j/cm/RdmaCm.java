package org.roce4j.cm;

import org.roce4j.verbs.Verbs;
import org.roce4j.verbs.spi.VerbsProvider;

/**
 * Where rdma_cm starts: {@code rdma_create_event_channel} on the provider
 * {@link Verbs#provider()} picks ({@code -Droce4j.provider=emulator|ibverbs}).
 *
 * <pre>{@code
 * try (EventChannel channel = RdmaCm.createEventChannel();
 *      CmId id = channel.createId(PortSpace.TCP)) {
 *     id.resolveAddr(null, new InetSocketAddress("10.0.0.2", 7471), Duration.ofSeconds(2));
 *     ...
 * }
 * }</pre>
 */
public final class RdmaCm {
    private RdmaCm() {
    }

    /**
     * {@return a new event channel of the selected provider}
     *
     * @throws org.roce4j.verbs.VerbsException ENODEV when no provider is available, ENOSYS when the
     *         provider has no connection manager ({@link VerbsProvider#whyNoConnectionManager()} says why)
     */
    public static EventChannel createEventChannel() {
        return Verbs.provider().createEventChannel();
    }

    /**
     * {@return the selected provider's connection manager (the provider is looked up when it makes a channel)}
     */
    public static ConnectionManager connectionManager() {
        return RdmaCm::createEventChannel;
    }
}
