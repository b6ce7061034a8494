package org.roce4j.wire.mad;

/**
 * rdma_cm's service IDs (Linux cma.c {@code rdma_get_service_id}): {@code (port space << 16) +
 * port}, where the port space is librdmacm's 16-bit value, so TCP's 0x0106 gives the familiar
 * prefix 0x0000000001, the byte 0x06, then the port: 0x0000000001061c06 is TCP port 7174. The IP
 * port spaces' prefixes are {@code RDMA_IB_IP_PS_TCP/UDP/IB} of {@code rdma_cma.h}. IPoIB's 0x0002
 * has no 0x01 in front.
 */
public final class ServiceId {
    /** {@code RDMA_PS_IPOIB}. */
    public static final int PS_IPOIB = 0x0002;
    /** {@code RDMA_PS_TCP}: RC, what rping uses. */
    public static final int PS_TCP = 0x0106;
    /** {@code RDMA_PS_UDP}: UD, resolved with SIDR. */
    public static final int PS_UDP = 0x0111;
    /** {@code RDMA_PS_IB}. */
    public static final int PS_IB = 0x013F;

    private static final int[] PORT_SPACES = {PS_IPOIB, PS_TCP, PS_UDP, PS_IB};
    private static final int PORT_BITS = 16;
    private static final int PORT_SPACE_MASK = 0xFFFF;

    private ServiceId() {
    }

    /**
     * {@return rdma_cm's service ID for a port in a port space}
     *
     * @param portSpace librdmacm's value ({@link #PS_TCP} = 0x0106), or just its low byte (0x06), the
     *                  byte the service ID shows
     * @param port      the TCP/UDP-style port, 0–65535
     * @throws IllegalArgumentException for a port space rdma_cm does not have, or a port out of range
     */
    public static long of(int portSpace, int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port " + port + " is outside [0, 65535]");
        }
        return (long) known(portSpace) << PORT_BITS | port;
    }

    private static int known(int portSpace) {
        for (int space : PORT_SPACES) {
            if (space == portSpace || (portSpace & ~0xFF) == 0 && (space & 0xFF) == portSpace) {
                return space;
            }
        }
        throw new IllegalArgumentException(String.format("no rdma_cm port space 0x%04x", portSpace));
    }

    /**
     * {@return the port space of a service ID, librdmacm's 16-bit value (cma.c
     * {@code rdma_ps_from_service_id})}
     *
     * @param serviceId the service ID
     */
    public static int portSpace(long serviceId) {
        return (int) (serviceId >>> PORT_BITS) & PORT_SPACE_MASK;
    }

    /**
     * {@return the port, the service ID's low 16 bits (cma.c {@code cma_port_from_service_id})}
     *
     * @param serviceId the service ID
     */
    public static int port(long serviceId) {
        return (int) serviceId & 0xFFFF;
    }

    /**
     * {@return whether a service ID is one rdma_cm makes: nothing above the port space, and a port
     * space it has}
     *
     * @param serviceId the service ID
     */
    public static boolean isRdmaCm(long serviceId) {
        if (serviceId >>> (PORT_BITS + 16) != 0) {
            return false;
        }
        int space = portSpace(serviceId);
        for (int known : PORT_SPACES) {
            if (known == space) {
                return true;
            }
        }
        return false;
    }
}
