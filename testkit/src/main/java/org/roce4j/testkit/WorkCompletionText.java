package org.roce4j.testkit;

import java.util.List;

import org.roce4j.verbs.WorkCompletion;

/** A completion as the assertions print it: its fields with the ibv names, and the request it completes. */
final class WorkCompletionText {
    private WorkCompletionText() {
    }

    static String of(WorkCompletion wc) {
        StringBuilder text = new StringBuilder(Describe.status(wc.status()))
                .append(": wr_id=").append(Long.toUnsignedString(wc.wrId()))
                .append(" opcode=").append(Describe.opcode(wc.opcode()))
                .append(" byte_len=").append(Integer.toUnsignedString(wc.byteLen()))
                .append(String.format(java.util.Locale.ROOT, " qp_num=0x%06x", wc.qpNum()));
        if (wc.has(org.roce4j.verbs.WcFlag.WITH_IMM)) {
            text.append(" imm_data=0x").append(Integer.toHexString(wc.immData()));
        }
        if (wc.opcode().isReceive()) {
            text.append(String.format(java.util.Locale.ROOT, " src_qp=0x%06x", wc.srcQp()));
        }
        if (wc.wcFlags() != 0) {
            text.append(" wc_flags=").append(wc.flags());
        }
        for (PostedWorkRequests.Posted posted : requestsOf(wc)) {
            text.append("\n    completes ").append(posted);
        }
        return text.toString();
    }

    /**
     * The requests the test posted that this completion may complete: by QP number and wr_id; send
     * or receive by the opcode (an error completion's opcode is undefined, as in libibverbs: both).
     */
    static List<PostedWorkRequests.Posted> requestsOf(WorkCompletion wc) {
        TestFabric test = ActiveTests.current();
        if (test == null) {
            return List.of();
        }
        PostedWorkRequests posted = test.tracker().posted();
        if (!wc.isSuccess()) {
            List<PostedWorkRequests.Posted> sends = posted.find(null, wc.qpNum(), wc.wrId(), true);
            List<PostedWorkRequests.Posted> receives = posted.find(null, wc.qpNum(), wc.wrId(), false);
            return java.util.stream.Stream.concat(sends.stream(), receives.stream()).toList();
        }
        return posted.find(null, wc.qpNum(), wc.wrId(), !wc.opcode().isReceive());
    }
}
