package org.roce4j.emulator.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Big-endian field writes and reads on frame bytes, for the RNIC's hot path (wire's own helper is package-private). */
public final class NetworkOrder {
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private NetworkOrder() {
    }

    static void u8(byte[] b, int off, int value) {
        b[off] = (byte) value;
    }

    static void u16(byte[] b, int off, int value) {
        SHORT.set(b, off, (short) value);
    }

    static int u16(byte[] b, int off) {
        return (short) SHORT.get(b, off) & 0xFFFF;
    }

    static void u24(byte[] b, int off, int value) {
        b[off] = (byte) (value >>> 16);
        b[off + 1] = (byte) (value >>> 8);
        b[off + 2] = (byte) value;
    }

    public static void i32(byte[] b, int off, int value) {
        INT.set(b, off, value);
    }

    public static int i32(byte[] b, int off) {
        return (int) INT.get(b, off);
    }

    static void i64(byte[] b, int off, long value) {
        LONG.set(b, off, value);
    }

    static long i64(byte[] b, int off) {
        return (long) LONG.get(b, off);
    }

    /** Writes a 48-bit MAC address held in the low bits of a long. */
    static void mac(byte[] b, int off, long mac) {
        u16(b, off, (int) (mac >>> 32));
        i32(b, off + 2, (int) mac);
    }

    static long mac(byte[] b, int off) {
        return (long) u16(b, off) << 32 | Integer.toUnsignedLong(i32(b, off + 2));
    }
}
