package org.roce4j.wire.ladder;

import java.net.InetAddress;
import java.util.Locale;
import java.util.Objects;
import org.roce4j.wire.FrameText;

/**
 * A queue pair on a node, as a capture shows it: its IP address and its QPN, or {@link #UNKNOWN_QPN}
 * when no frame told which QP sent (a UC stream with no frames back).
 *
 * @param address the node's IP address
 * @param qpn     the 24-bit QP number, or {@link #UNKNOWN_QPN}
 */
public record Endpoint(InetAddress address, int qpn) {
    /** The QPN of a sender no frame identified. */
    public static final int UNKNOWN_QPN = -1;

    /** Checks the address is there. */
    public Endpoint {
        Objects.requireNonNull(address, "address");
    }

    /** {@return the lifeline's name, e.g. {@code 10.0.0.1 QP 0x000011} (hex, as NumberText prints QPNs)} */
    public String name() {
        return FrameText.address(address) + " QP " + (qpn == UNKNOWN_QPN ? "?" : String.format(Locale.ROOT, "0x%06x", qpn));
    }

    @Override
    public String toString() {
        return name();
    }
}
