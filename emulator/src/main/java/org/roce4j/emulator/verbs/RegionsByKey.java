package org.roce4j.emulator.verbs;

/**
 * Memory regions by their whole 32-bit key: an open-addressing hash table (linear probing,
 * backward-shift deletion), so a lookup costs O(1) and allocates nothing whatever the key layout
 * ({@link KeySource}). Key 0 marks an empty cell: it never names a region.
 */
final class RegionsByKey<V> {
    private int[] keys = new int[64];
    private Object[] values = new Object[64];
    private int size;

    /** The value stored for {@code key}, or null. */
    @SuppressWarnings("unchecked")
    V get(int key) {
        if (key == 0 || size == 0) {
            return null; // size 0: a device with no memory windows asks for one on every remote access
        }
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            int k = keys[i];
            if (k == key) {
                return (V) values[i];
            }
            if (k == 0) {
                return null;
            }
        }
    }

    boolean contains(int key) {
        return get(key) != null;
    }

    /** Stores {@code value} (not null) for {@code key} (not 0), replacing what was there. */
    void put(int key, V value) {
        if (key == 0 || value == null) {
            throw new IllegalArgumentException("key 0 and null values are not stored");
        }
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (keys[i] != 0 && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (keys[i] == 0) {
            size++;
        }
        keys[i] = key;
        values[i] = value;
    }

    void remove(int key) {
        if (key == 0) {
            return;
        }
        int mask = keys.length - 1;
        int i = mix(key) & mask;
        while (keys[i] != key) {
            if (keys[i] == 0) {
                return;
            }
            i = (i + 1) & mask;
        }
        // Backward shift: move later entries of the probe run into the hole, so no tombstones pile up.
        int hole = i;
        for (int j = (hole + 1) & mask; keys[j] != 0; j = (j + 1) & mask) {
            int home = mix(keys[j]) & mask;
            boolean movable = hole <= j ? home <= hole || home > j : home <= hole && home > j;
            if (movable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        keys[hole] = 0;
        values[hole] = null;
        size--;
    }

    int size() {
        return size;
    }

    private void grow() {
        int[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new Object[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                putUnchecked(oldKeys[i], oldValues[i]);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void putUnchecked(int key, Object value) {
        put(key, (V) value);
    }

    /** Spreads counted keys ({@code index << 8 | byte}) over the table; random keys need no help. */
    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
