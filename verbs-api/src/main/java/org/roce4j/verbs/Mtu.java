package org.roce4j.verbs;

/** Path MTU: {@code enum ibv_mtu}. RoCE payload sizes per packet, 256 to 4096 bytes. */
public enum Mtu {
    MTU_256(1, 256),
    MTU_512(2, 512),
    MTU_1024(3, 1024),
    MTU_2048(4, 2048),
    MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** The {@code IBV_MTU_*} value (1 to 5). */
    public int value() {
        return value;
    }

    public int bytes() {
        return bytes;
    }

    public static Mtu of(int value) {
        for (Mtu mtu : values()) {
            if (mtu.value == value) {
                return mtu;
            }
        }
        throw new IllegalArgumentException("no ibv_mtu " + value);
    }

    /** The largest MTU that fits in the given number of bytes, as ibv_*_pingpong's {@code mtu_to_enum}. */
    public static Mtu ofBytes(int bytes) {
        for (Mtu mtu : values()) {
            if (mtu.bytes == bytes) {
                return mtu;
            }
        }
        throw new IllegalArgumentException("no path MTU of " + bytes + " bytes (256, 512, 1024, 2048 or 4096)");
    }
}
