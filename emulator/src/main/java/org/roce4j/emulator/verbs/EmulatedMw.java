package org.roce4j.emulator.verbs;

import org.roce4j.emulator.node.Rnic;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwType;
import org.roce4j.verbs.Pd;

/**
 * The API handle of a memory window ({@code struct ibv_mw}); the RNIC's record is its {@link MemoryWindow}.
 * The handle's rkey is what libibverbs' {@code mw->rkey} holds: the allocation's, then what a successful
 * {@code ibv_bind_mw} wrote back; the device's own key moves when a bind executes.
 */
final class EmulatedMw extends Resource implements Mw {
    final EmulatedPd pd;
    final MemoryWindow window;
    int rkey;

    EmulatedMw(Rnic rnic, EmulatedPd pd, MemoryWindow window) {
        super(rnic);
        this.pd = pd;
        this.window = window;
        this.rkey = window.rkey;
    }

    @Override
    String kind() {
        return "memory window";
    }

    @Override
    public Pd pd() {
        return pd;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public MwType type() {
        return window.type;
    }

    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
            }
            closed = true;
            rnic.memoryRegions.deallocate(window);
            pd.mws--;
        });
    }

    @Override
    public String toString() {
        return "Mw[" + window.type + ", rkey=0x" + Integer.toHexString(rkey) + "]";
    }
}
