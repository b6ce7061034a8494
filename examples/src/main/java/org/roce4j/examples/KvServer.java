package org.roce4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mtu;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;

/**
 * The server of a key-value store that clients read with RDMA READ: the table is an open-addressing
 * hash table (linear probing) in registered memory, and a get costs the server no CPU at all.
 *
 * <p>Slot layout (big-endian lengths): {@code key length (2) | value length (2) | key | value}; a
 * key length of 0 marks an empty slot. A put is a local store: this example has a single writer
 * that fills the table before clients read (no torn reads to guard against).
 */
public final class KvServer {
    static final ValueLayout.OfShort LENGTH = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Where the table is and how it is laid out: what a client needs, sent out of band.
     *
     * @param address   the remote address of slot 0
     * @param rkey      the table's rkey
     * @param slots     the number of slots
     * @param keyMax    the longest key, in UTF-8 bytes
     * @param valueMax  the longest value, in bytes
     */
    public record Table(long address, int rkey, int slots, int keyMax, int valueMax) {
        /** {@return the bytes of one slot} */
        public int slotBytes() {
            return 4 + keyMax + valueMax;
        }

        /**
         * {@return the slot a key starts probing at}
         *
         * @param key the key's UTF-8 bytes
         */
        public int home(byte[] key) {
            return Math.floorMod(java.util.Arrays.hashCode(key), slots);
        }
    }

    private final Endpoint endpoint;
    private final Table table;
    private final Mr memory;

    /**
     * Registers a table of {@code slots} slots for keys up to {@code keyMax} and values up to
     * {@code valueMax} bytes, readable remotely.
     *
     * @param endpoint where the table lives
     * @param slots    the number of slots
     * @param keyMax   the longest key
     * @param valueMax the longest value
     */
    public KvServer(Endpoint endpoint, int slots, int keyMax, int valueMax) {
        this.endpoint = endpoint;
        int slotBytes = 4 + keyMax + valueMax;
        this.memory = endpoint.register((long) slots * slotBytes, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ));
        this.table = new Table(memory.address(), memory.rkey(), slots, keyMax, valueMax);
    }

    /** {@return what a client needs to read the table} */
    public Table table() {
        return table;
    }

    /**
     * {@return a QP for one client, in INIT, whose responder allows RDMA READ}: connect it with
     * {@link RcConnection#connect(Qp, int, RcConnection.Address, Mtu, int)}.
     */
    public Qp acceptQp() {
        return RcConnection.create(endpoint, QpCap.of(4, 4), Set.of(AccessFlag.REMOTE_READ));
    }

    /**
     * Stores {@code value} under {@code key} (replacing an old value).
     *
     * @param key   the key, at most {@code keyMax} UTF-8 bytes
     * @param value the value, at most {@code valueMax} bytes
     * @throws IllegalArgumentException if the key or value is too long, or the table is full
     */
    public void put(String key, byte[] value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        if (k.length == 0 || k.length > table.keyMax() || value.length > table.valueMax()) {
            throw new IllegalArgumentException("key of " + k.length + " bytes or value of " + value.length + " bytes does not fit");
        }
        MemorySegment slots = memory.segment();
        for (int probe = 0; probe < table.slots(); probe++) {
            long at = (long) ((table.home(k) + probe) % table.slots()) * table.slotBytes();
            int keyLength = slots.get(LENGTH, at);
            if (keyLength == 0 || keyLength == k.length
                    && slots.asSlice(at + 4, k.length).mismatch(MemorySegment.ofArray(k)) == -1) {
                MemorySegment.copy(MemorySegment.ofArray(k), 0, slots, at + 4, k.length);
                MemorySegment.copy(MemorySegment.ofArray(value), 0, slots, at + 4 + table.keyMax(), value.length);
                slots.set(LENGTH, at + 2, (short) value.length);
                slots.set(LENGTH, at, (short) k.length);
                return;
            }
        }
        throw new IllegalArgumentException("the table is full");
    }
}
