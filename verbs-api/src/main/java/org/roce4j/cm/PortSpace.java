package org.roce4j.cm;

import java.util.Optional;
import org.roce4j.verbs.QpType;

/**
 * The port space of a CM id ({@code enum rdma_port_space}): which service ids it binds and which QP
 * type it connects. The value is librdmacm's; its low byte is the port-space byte of rdma_cm's
 * service id ({@code 0x0000000001 | ps | port}, Linux cma.c {@code rdma_get_service_id}).
 */
public enum PortSpace {
    /** {@code RDMA_PS_IPOIB}: UD, the IPoIB-compatible space. */
    IPOIB(0x0002, QpType.UD),
    /** {@code RDMA_PS_IB}: the IB port space (RC here; no rdma_cm IP header in the private data). */
    IB(0x013F, QpType.RC),
    /** {@code RDMA_PS_TCP}: reliable connections, what rping and perftest {@code -R} use. */
    TCP(0x0106, QpType.RC),
    /** {@code RDMA_PS_UDP}: unreliable datagrams, resolved with SIDR (udaddy). */
    UDP(0x0111, QpType.UD);

    private final int value;
    private final QpType qpType;

    PortSpace(int value, QpType qpType) {
        this.value = value;
        this.qpType = qpType;
    }

    /** {@return librdmacm's value, e.g. 0x0106 for {@code RDMA_PS_TCP}} */
    public int value() {
        return value;
    }

    /** {@return the byte this space puts in rdma_cm's service id (0x06 for TCP, 0x11 for UDP)} */
    public int serviceIdByte() {
        return value & 0xFF;
    }

    /** {@return the QP type an id in this space connects, as {@code rdma_create_id} picks it} */
    public QpType qpType() {
        return qpType;
    }

    /**
     * {@return the port space with this librdmacm value}
     *
     * @param value e.g. 0x0106
     */
    public static Optional<PortSpace> of(int value) {
        for (PortSpace space : values()) {
            if (space.value == value) {
                return Optional.of(space);
            }
        }
        return Optional.empty();
    }
}
