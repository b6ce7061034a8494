package com.example;

import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.WrOpcode;

/** Your code: writes a buffer into the peer's memory and wakes the peer with a number. */
public final class Notifier {
    private final Qp qp;
    private final Mr local;

    public Notifier(Qp qp, Mr local) {
        this.qp = qp;
        this.local = local;
    }

    /** Posts one RDMA WRITE WITH IMMEDIATE of {@code length} bytes from offset 0 of the local region. */
    public void writeAndNotify(int length, long remoteAddress, int rkey, int number) {
        qp.postSend(SendWr.rdmaWrite(1, local, 0, length, remoteAddress, rkey)
                .opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(number));
    }
}
