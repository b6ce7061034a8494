package org.roce4j.emulator.fabric;

/**
 * Ports by MAC address, looked up with the 48-bit address as a primitive long: a
 * {@code HashMap<MacAddress, …>} would allocate a key for every frame. Open addressing with
 * linear probing; ports are never removed. Not thread-safe: the fabric lock guards it.
 */
final class PortTable {

    private long[] keys = new long[16];
    private AttachedPort[] ports = new AttachedPort[16];
    private int count;

    /** {@return the port with that MAC, or null} */
    AttachedPort get(long mac) {
        int mask = ports.length - 1;
        for (int i = indexOf(mac, mask); ; i = (i + 1) & mask) {
            AttachedPort port = ports[i];
            if (port == null || keys[i] == mac) {
                return port;
            }
        }
    }

    /** Adds a port whose MAC no other port has. */
    void put(long mac, AttachedPort port) {
        if ((count + 1) * 2 > ports.length) {
            rehash(ports.length * 2);
        }
        insert(mac, port);
        count++;
    }

    int size() {
        return count;
    }

    private void insert(long mac, AttachedPort port) {
        int mask = ports.length - 1;
        int i = indexOf(mac, mask);
        while (ports[i] != null) {
            i = (i + 1) & mask;
        }
        keys[i] = mac;
        ports[i] = port;
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        AttachedPort[] oldPorts = ports;
        keys = new long[capacity];
        ports = new AttachedPort[capacity];
        for (int i = 0; i < oldPorts.length; i++) {
            if (oldPorts[i] != null) {
                insert(oldKeys[i], oldPorts[i]);
            }
        }
    }

    private static int indexOf(long mac, int mask) {
        // Fibonacci hashing: MACs of one emulated fabric often differ only in their last byte.
        return (int) ((mac * 0x9E37_79B9_7F4A_7C15L) >>> 40) & mask;
    }
}
