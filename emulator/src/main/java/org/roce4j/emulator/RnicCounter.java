package org.roce4j.emulator;

/**
 * What an emulated RNIC counts, for tests and diagnostics ({@link SoftRnic#counter}), and the one
 * source of the port counters the Verbs API shows ({@code Context.queryPortCounters}): each counter
 * has its {@link #portCounterName()}, Linux Soft-RoCE's name where rxe counts the same event
 * ({@code rxe_hw_counters.c}, in rxe's order), a roce4j name otherwise. Frames that fail to parse
 * are counted per {@link org.roce4j.wire.DropReason} ({@link SoftRnic#dropped}).
 */
public enum RnicCounter {
    // ---- rxe's hw_counters, rxe's order -----------------------------------------------------
    FRAMES_SENT("sent_pkts", "frames transmitted: requests, responses, ACKs (rxe_xmit_packet)"),
    PACKETS_RECEIVED("rcvd_pkts", "packets that passed the header checks and reached a QP (rxe_rcv)"),
    DUPLICATE_REQUESTS("duplicate_request", "RC requests with a PSN already seen"),
    OUT_OF_SEQUENCE_REQUESTS("out_of_seq_request", "RC requests ahead of the expected PSN that drew a sequence NAK"),
    RNR_NAKS_RECEIVED("rcvd_rnr_err", "RNR NAKs received"),
    RNR_NAKS_SENT("send_rnr_err", "RNR NAKs sent"),
    SEQUENCE_NAKS_RECEIVED("rcvd_seq_err", "PSN sequence error NAKs received"),
    RESPONSES_TO_COMPLETER("ack_deferred", "response packets handed to a completer (rxe_comp_queue_pkt)"),
    RETRY_EXCEEDED("retry_exceeded_err", "send WQEs failed with RETRY_EXC_ERR"),
    RNR_RETRY_EXCEEDED("retry_rnr_exceeded_err", "send WQEs failed with RNR_RETRY_EXC_ERR"),
    COMPLETER_RETRIES("completer_retry_err",
            "go-backs charged to retry_cnt: sequence NAK, implicit NAK, local ACK timeout"),
    SEND_ERRORS("send_err", "frames sent to a GID no node of the fabric owns (no neighbour: broadcast, lost)"),
    LINK_DOWNED("link_downed", "link down events: always 0, the fabric's links never go down"),
    SENDS_COMPLETED("rdma_sends", "SEND WQEs completed successfully at the requester"),
    RECEIVES_COMPLETED("rdma_recvs", "receive WQEs completed successfully at the responder"),

    // ---- roce4j's own ------------------------------------------------------------------------
    LOCAL_ACK_TIMEOUTS("local_ack_timeouts", "local ACK timer expiries with packets outstanding (IBTA 9.7.6.1.3)"),
    RETRANSMITTED_PACKETS("retransmitted_pkts", "request packets sent again with a PSN already sent"),
    FRAMES_RECEIVED("rcvd_frames", "frames received, before any check"),
    ACKS_SENT("acks_sent", "ACK packets sent"),
    NAKS_SENT("naks_sent", "NAK packets sent (sequence, invalid request, access, operational)"),
    NAKS_RECEIVED("rcvd_naks", "NAKs received, RNR NAKs not included"),
    RETRIES("retries", "times the requester went back to resend (RNR retries included)"),
    COMPLETIONS("completions", "work completions generated"),
    DROPPED_MALFORMED("dropped_malformed", "frames that did not parse as RoCEv2 or failed the ICRC"),
    DROPPED_NOT_OUR_GID("dropped_not_our_gid", "destination IP is none of this port's GIDs (rxe_chk_dgid)"),
    DROPPED_UNKNOWN_QP("dropped_unknown_qp", "destination QP does not exist"),
    DROPPED_WRONG_TRANSPORT("dropped_wrong_transport", "opcode's transport does not match the QP type, or a CNP"),
    DROPPED_BAD_PKEY("dropped_bad_pkey", "P_Key does not match the default partition"),
    DROPPED_WRONG_ADDRESS("dropped_wrong_address",
            "RC/UC packet not from the QP's destination address to its source address (rxe check_addr)"),
    DROPPED_QKEY_VIOLATION("dropped_qkey_violation", "UD Q_Key does not match the QP's (IBTA C10-15: silently dropped)"),
    DROPPED_QP_STATE("dropped_qp_state", "the QP's state does not accept the packet"),
    DROPPED_NO_RECEIVE_WQE("dropped_no_receive_wqe", "UC/UD message with no receive WQE (IBTA: silently dropped)"),
    DROPPED_UC_MESSAGE("dropped_uc_message", "UC packets of a message dropped after a sequence or length error"),
    DROPPED_UD_TOO_LONG("dropped_ud_too_long",
            "UD datagrams longer than the receive WQE (its 40-byte GRH included): dropped, the WQE kept, the QP in RTS"),
    DROPPED_PSN_OUT_OF_WINDOW("dropped_psn_out_of_window",
            "RC requests outside the PSN window around the expected PSN, UC message starts behind it"),
    DROPPED_STALE_RESPONSE("dropped_stale_response", "responses matching no outstanding request"),
    MEMORY_ACCESS_ERRORS("memory_access_errors",
            "reads or writes of registered memory that failed (arena closed after registration, memory confined to "
            + "another thread, region deregistered under a WQE): each fails a WQE and moves its QP to the error state"),
    DROPPED_SOURCE_GONE("dropped_source_gone",
            "frames lost because the sender's region their payload was still in (one copy, on the in-process fabric) "
            + "was deregistered, invalidated or freed before they arrived: the sender's retransmission then fails its WQE"),
    DROPPED_BEHIND_READ("dropped_behind_read",
            "RC requests dropped while more READ responses were owed than the responder sends at once (the requester resends)"),
    MADS_SENT("cm_mads_sent", "connection-management MADs sent from QP 1, retries included"),
    MADS_RECEIVED("cm_mads_rcvd", "MADs to QP 1 that passed the GSI's checks (UD SEND Only, P_Key 0xFFFF, Q_Key 0x80010000)"),
    DROPPED_BAD_MAD("dropped_bad_mad",
            "packets to QP 1 that are not a UD SEND Only of a 256-byte MAD, or MADs the connection manager cannot decode"),
    DROPPED_NO_MCAST_GROUP("dropped_no_mcast_group",
            "multicast packets (DestQP 0xFFFFFF) to a group no QP of this port is attached to (rxe_rcv_mcast_pkt)");

    private final String portCounterName;
    private final String description;

    RnicCounter(String portCounterName, String description) {
        this.portCounterName = portCounterName;
        this.description = description;
    }

    /** The name in {@code Context.queryPortCounters}: rxe's where rxe counts the same thing. */
    public String portCounterName() {
        return portCounterName;
    }

    public String description() {
        return description;
    }
}
