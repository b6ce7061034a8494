package org.roce4j.verbs;

/** Path MTU: {@code enum ibv_mtu}. RoCE payload sizes per packet, 256 to 4096 bytes. */
public enum Mtu {
    /** {@code IBV_MTU_256}: 256-byte payloads. */
    MTU_256(1, 256),
    /** {@code IBV_MTU_512}: 512-byte payloads. */
    MTU_512(2, 512),
    /** {@code IBV_MTU_1024}: 1024-byte payloads; Soft-RoCE on 1500-byte Ethernet. */
    MTU_1024(3, 1024),
    /** {@code IBV_MTU_2048}: 2048-byte payloads. */
    MTU_2048(4, 2048),
    /** {@code IBV_MTU_4096}: 4096-byte payloads; needs jumbo Ethernet frames. */
    MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** {@return the {@code IBV_MTU_*} value (1 to 5)} */
    public int value() {
        return value;
    }

    /** {@return the payload bytes per packet} */
    public int bytes() {
        return bytes;
    }

    /**
     * {@return the constant for an {@code IBV_MTU_*} value}
     *
     * @param value 1 to 5
     * @throws IllegalArgumentException for another value
     */
    public static Mtu of(int value) {
        for (Mtu mtu : values()) {
            if (mtu.value == value) {
                return mtu;
            }
        }
        throw new IllegalArgumentException("no ibv_mtu " + value);
    }

    /**
     * {@return the MTU of exactly {@code bytes}, as ibv_*_pingpong's {@code mtu_to_enum}}
     *
     * @param bytes 256, 512, 1024, 2048 or 4096
     * @throws IllegalArgumentException for another size
     */
    public static Mtu ofBytes(int bytes) {
        for (Mtu mtu : values()) {
            if (mtu.bytes == bytes) {
                return mtu;
            }
        }
        throw new IllegalArgumentException("no path MTU of " + bytes + " bytes (256, 512, 1024, 2048 or 4096)");
    }
}
