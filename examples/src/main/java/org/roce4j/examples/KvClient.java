package org.roce4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Optional;

import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.SendWr;

/**
 * Gets values from a {@link KvServer} with RDMA READs: one READ of the key's home slot, then one per
 * further probe, until the key or an empty slot is found.
 */
public final class KvClient {
    private final Endpoint endpoint;
    private final Qp qp;
    private final KvServer.Table table;
    private final Mr slot;
    private final SendWr read = new SendWr();
    private long reads;

    /**
     * A client on a connected RC QP.
     *
     * @param endpoint the client's side (its CQ is the QP's)
     * @param qp       an RC QP in RTS, connected to the server's
     * @param table    the server's table, as it told us
     */
    public KvClient(Endpoint endpoint, Qp qp, KvServer.Table table) {
        this.endpoint = endpoint;
        this.qp = qp;
        this.table = table;
        this.slot = endpoint.register(table.slotBytes(), EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    /**
     * {@return the value stored under {@code key}, or empty}
     *
     * @param key the key
     * @throws RdmaFailure if a READ fails
     */
    public Optional<byte[]> get(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        MemorySegment local = slot.segment();
        for (int probe = 0; probe < table.slots(); probe++) {
            int index = (table.home(k) + probe) % table.slots();
            read.reset().wrId(++reads).opcode(org.roce4j.verbs.WrOpcode.RDMA_READ).signaled(true)
                    .sge(slot, 0, table.slotBytes())
                    .remote(table.address() + (long) index * table.slotBytes(), table.rkey());
            qp.postSend(read);
            Polling.next(endpoint.cq());
            int keyLength = local.get(KvServer.LENGTH, 0);
            if (keyLength == 0) {
                return Optional.empty();
            }
            if (keyLength == k.length && local.asSlice(4, k.length).mismatch(MemorySegment.ofArray(k)) == -1) {
                int valueLength = local.get(KvServer.LENGTH, 2);
                return Optional.of(local.asSlice(4 + table.keyMax(), valueLength).toArray(ValueLayout.JAVA_BYTE));
            }
        }
        return Optional.empty();
    }

    /** {@return the RDMA READs posted so far} */
    public long reads() {
        return reads;
    }
}
