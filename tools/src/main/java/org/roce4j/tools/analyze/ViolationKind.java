package org.roce4j.tools.analyze;

/** The protocol rules the analysis checks, each named as the report and the JSON name it. */
public enum ViolationKind {
    /**
     * IBTA 9.7.5.2.1 (rxe_comp.c: a sequence NAK sets comp.psn to its PSN and req_retry resends from there): after a PSN sequence error NAK the requester resends from
     * the NAK's PSN; a go-back to an earlier PSN resends requests the NAK already acknowledged.
     */
    GO_BACK_NOT_AT_NAKED_PSN,
    /**
     * rxe_req.c req_retry: a READ resumed at a PSN inside the original READ asks only
     * for what is missing: VA advanced by (resume PSN - first PSN) x PMTU, length reduced as much.
     */
    READ_RETRY_RETH_MISMATCH,
    /**
     * rxe_resp.c duplicate_request: a duplicate atomic is answered from the responder's saved result, never
     * executed again, so every Atomic Acknowledge for one PSN carries the same original value.
     */
    ATOMIC_EXECUTED_TWICE,
    /** IBTA 9.7.5.1: a responder acknowledges only PSNs it received, so never one the requester has not sent. */
    ACK_FOR_UNSENT_PSN
}
