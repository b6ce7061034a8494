package org.roce4j.emulator.verbs;

import org.roce4j.emulator.node.NetworkPath;
import org.roce4j.emulator.node.Rnic;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Pd;

/** An address handle: a UD destination, resolved for the wire when created. */
final class EmulatedAh extends Resource implements Ah {
    final EmulatedPd pd;
    private final AhAttr attr;
    final NetworkPath path;

    EmulatedAh(Rnic rnic, EmulatedPd pd, AhAttr attr, NetworkPath path) {
        super(rnic);
        this.pd = pd;
        this.attr = attr;
        this.path = path;
    }

    @Override
    String kind() {
        return "address handle";
    }

    @Override
    public Pd pd() {
        return pd;
    }

    @Override
    public AhAttr attr() {
        return attr;
    }

    /** {@code ibv_destroy_ah}. Sends already posted with it still go out: the WQE holds the path. */
    @Override
    public void close() {
        rnic.run(() -> {
            if (closed) {
                return;
            }
            closed = true;
            pd.ahs--;
        });
    }
}
