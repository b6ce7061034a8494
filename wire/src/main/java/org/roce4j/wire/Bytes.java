package org.roce4j.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Big-endian (network order) field access on byte arrays, shared by every codec in wire. */
final class Bytes {
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private Bytes() {}

    static int u8(byte[] b, int off) {
        return b[off] & 0xFF;
    }

    static int u16(byte[] b, int off) {
        return (short) SHORT.get(b, off) & 0xFFFF;
    }

    static int u24(byte[] b, int off) {
        return (b[off] & 0xFF) << 16 | (b[off + 1] & 0xFF) << 8 | b[off + 2] & 0xFF;
    }

    static int i32(byte[] b, int off) {
        return (int) INT.get(b, off);
    }

    static int i32le(byte[] b, int off) {
        return (int) INT_LE.get(b, off);
    }

    static long i64(byte[] b, int off) {
        return (long) LONG.get(b, off);
    }

    static void u8(byte[] b, int off, int value) {
        b[off] = (byte) value;
    }

    static void u16(byte[] b, int off, int value) {
        SHORT.set(b, off, (short) value);
    }

    static void u24(byte[] b, int off, int value) {
        b[off] = (byte) (value >>> 16);
        b[off + 1] = (byte) (value >>> 8);
        b[off + 2] = (byte) value;
    }

    static void i32(byte[] b, int off, int value) {
        INT.set(b, off, value);
    }

    static void i32le(byte[] b, int off, int value) {
        INT_LE.set(b, off, value);
    }

    static void i64(byte[] b, int off, long value) {
        LONG.set(b, off, value);
    }

    static void requireRange(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " " + value + " is outside [" + min + ", " + max + "]");
        }
    }

    static void require24(String field, int value) {
        requireRange(field, value, 0, 0xFFFFFF);
    }
}
