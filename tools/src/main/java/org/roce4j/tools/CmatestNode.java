package org.roce4j.tools;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

import org.roce4j.cm.CmId;
import org.roce4j.verbs.AccessFlag;
import org.roce4j.verbs.Ah;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.VerbsException;

/**
 * {@code struct cmatest_node} of librdmacm's UD examples (udaddy.c, mckey.c) and the steps they share
 * word for word but for the program's name in their messages: verify_test_params, init_node with
 * create_message, post_recvs, destroy_node.
 */
final class CmatestNode {
    final int id;
    CmId cmaId;
    boolean connected;
    Pd pd;
    Cq cq;
    Mr mr;
    Ah ah;
    int remoteQpn;
    int remoteQkey;
    MemorySegment mem;

    CmatestNode(int id) {
        this.id = id;
    }

    // verify_test_params
    int verifyTestParams(String tool, int messageCount, int messageSize, PrintWriter out) {
        Context verbs = cmaId.verbs().orElseThrow();
        int mtu = verbs.queryPort(cmaId.portNum()).activeMtu().bytes();
        if (messageCount != 0 && messageSize > mtu) {
            out.printf("%s: message_size %d is larger than active mtu %d%n", tool, messageSize, mtu);
            return -Errno.EINVAL.number();
        }
        return 0;
    }

    /**
     * init_node: PD, CQ, a UD QP of {@code messageCount} (at least 1) WRs each way, and with messages the
     * registered buffer of create_message, which makes none for no messages or messages of 0 bytes (the
     * caller then counts no messages, as create_message sets {@code message_count} to 0).
     */
    int initNode(String tool, int messageCount, int messageSize, Arena arena, PrintWriter out, PrintWriter err) {
        Context verbs = cmaId.verbs().orElseThrow();
        try {
            pd = verbs.allocPd();
        } catch (RuntimeException e) {
            out.println(tool + ": unable to allocate PD");
            return -Errno.ENOMEM.number();
        }
        int cqe = messageCount != 0 ? messageCount * 2 : 2;
        try {
            cq = verbs.createCq(cqe);
        } catch (RuntimeException e) {
            out.println(tool + ": unable to create CQ");
            return -Errno.ENOMEM.number();
        }
        int depth = messageCount != 0 ? messageCount : 1;
        QpInitAttr init = new QpInitAttr(QpType.UD, cq, cq, null, new QpCap(depth, depth, 1, 1, 0), false);
        try {
            cmaId.createQp(pd, init);
        } catch (RuntimeException e) {
            out.flush();
            err.println(Rping.perror(tool + ": unable to create QP", e));
            return -1;
        }
        int ret = createMessage(messageCount, messageSize, arena, out);
        if (ret != 0) {
            out.printf("%s: failed to create messages: %d%n", tool, ret);
        }
        return ret;
    }

    // create_message
    private int createMessage(int messageCount, int messageSize, Arena arena, PrintWriter out) {
        if (messageCount == 0 || messageSize == 0) {
            return 0;
        }
        mem = arena.allocate(messageSize + ReplyAddressVector.GRH_BYTES, 8);
        try {
            mr = pd.regMr(mem, EnumSet.of(AccessFlag.LOCAL_WRITE));
        } catch (RuntimeException e) {
            out.println("failed to reg MR");
            return -1;
        }
        return 0;
    }

    // post_recvs
    int postRecvs(int messageCount, int messageSize, PrintWriter out) {
        if (messageCount == 0) {
            return 0;
        }
        RecvWr wr = RecvWr.of(id, mr, 0, messageSize + ReplyAddressVector.GRH_BYTES);
        for (int i = 0; i < messageCount; i++) {
            try {
                cmaId.qp().orElseThrow().postRecv(wr);
            } catch (VerbsException e) {
                out.printf("failed to post receives: %d%n", e.errno().number());
                return e.errno().number();
            }
        }
        return 0;
    }

    // destroy_node
    void destroy() {
        if (cmaId == null) {
            return;
        }
        CmDevices.closeQuietly(ah);
        if (cmaId.qp().isPresent()) {
            try {
                cmaId.destroyQp();
            } catch (RuntimeException ignored) {
                // the examples ignore rdma_destroy_qp's result
            }
        }
        CmDevices.closeQuietly(cq);
        CmDevices.closeQuietly(mr);
        CmDevices.closeQuietly(pd);
        CmDevices.closeQuietly(cmaId); // the RDMA id after all device resources
    }
}
