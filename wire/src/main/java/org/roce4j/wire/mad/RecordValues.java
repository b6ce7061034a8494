package org.roce4j.wire.mad;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Value semantics for the CM records that hold byte arrays (GIDs, private data): equality and hash
 * by content, and text with the arrays in hex. A record compares arrays by identity otherwise.
 */
final class RecordValues {
    private static final int SHOWN_BYTES = 16;

    private RecordValues() {
    }

    static boolean equal(Record self, Object other) {
        if (other == null || other.getClass() != self.getClass()) {
            return false;
        }
        for (RecordComponent component : self.getClass().getRecordComponents()) {
            if (!Objects.deepEquals(value(component, self), value(component, (Record) other))) {
                return false;
            }
        }
        return true;
    }

    static int hash(Record self) {
        RecordComponent[] components = self.getClass().getRecordComponents();
        Object[] values = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            values[i] = value(components[i], self);
        }
        return Arrays.deepHashCode(values);
    }

    static String text(Record self) {
        StringBuilder text = new StringBuilder(self.getClass().getSimpleName()).append('[');
        RecordComponent[] components = self.getClass().getRecordComponents();
        for (int i = 0; i < components.length; i++) {
            Object value = value(components[i], self);
            text.append(i == 0 ? "" : ", ").append(components[i].getName()).append('=');
            if (value instanceof byte[] bytes) {
                text.append(HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, SHOWN_BYTES)))
                        .append(bytes.length > SHOWN_BYTES ? "…(" + bytes.length + ")" : "");
            } else if (value instanceof Number number && !(value instanceof Long)) {
                text.append(value).append(number.longValue() > 9 ? "/0x" + Long.toHexString(number.longValue()) : "");
            } else if (value instanceof Long number) {
                text.append("0x").append(Long.toHexString(number));
            } else {
                text.append(value);
            }
        }
        return text.append(']').toString();
    }

    private static Object value(RecordComponent component, Record record) {
        try {
            return component.getAccessor().invoke(record);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + component, e);
        }
    }
}
