package org.roce4j.wire;

import static org.roce4j.wire.HeaderType.AETH;
import static org.roce4j.wire.HeaderType.ATOMIC_ACK_ETH;
import static org.roce4j.wire.HeaderType.ATOMIC_ETH;
import static org.roce4j.wire.HeaderType.CNP_RESERVED;
import static org.roce4j.wire.HeaderType.FETH;
import static org.roce4j.wire.HeaderType.IETH;
import static org.roce4j.wire.HeaderType.IMM_DT;
import static org.roce4j.wire.HeaderType.RETH;
import static org.roce4j.wire.OperationKind.ACKNOWLEDGE;
import static org.roce4j.wire.OperationKind.ATOMIC;
import static org.roce4j.wire.OperationKind.ATOMIC_WRITE;
import static org.roce4j.wire.OperationKind.CONGESTION_NOTIFICATION;
import static org.roce4j.wire.OperationKind.FLUSH;
import static org.roce4j.wire.OperationKind.RDMA_READ_REQUEST;
import static org.roce4j.wire.OperationKind.RDMA_READ_RESPONSE;
import static org.roce4j.wire.OperationKind.RDMA_WRITE;
import static org.roce4j.wire.OperationKind.RESYNC;
import static org.roce4j.wire.OperationKind.SEND;
import static org.roce4j.wire.Position.FIRST;
import static org.roce4j.wire.Position.LAST;
import static org.roce4j.wire.Position.MIDDLE;
import static org.roce4j.wire.Position.ONLY;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The operation an opcode encodes: its low five bits (IBTA Vol. 1 §9.2 table 38), with the
 * headers and payload that operation carries on every transport. {@link Transport} adds the
 * transport's own headers; {@link Opcode} combines the two.
 */
public enum Operation {
    SEND_FIRST(0x00, "Send First", SEND, FIRST, true),
    SEND_MIDDLE(0x01, "Send Middle", SEND, MIDDLE, true),
    SEND_LAST(0x02, "Send Last", SEND, LAST, true),
    SEND_LAST_WITH_IMMEDIATE(0x03, "Send Last Immediate", SEND, LAST, true, IMM_DT),
    SEND_ONLY(0x04, "Send Only", SEND, ONLY, true),
    SEND_ONLY_WITH_IMMEDIATE(0x05, "Send Only Immediate", SEND, ONLY, true, IMM_DT),
    RDMA_WRITE_FIRST(0x06, "RDMA Write First", RDMA_WRITE, FIRST, true, RETH),
    RDMA_WRITE_MIDDLE(0x07, "RDMA Write Middle", RDMA_WRITE, MIDDLE, true),
    RDMA_WRITE_LAST(0x08, "RDMA Write Last", RDMA_WRITE, LAST, true),
    RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, "RDMA Write Last Immediate", RDMA_WRITE, LAST, true, IMM_DT),
    RDMA_WRITE_ONLY(0x0A, "RDMA Write Only", RDMA_WRITE, ONLY, true, RETH),
    RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x0B, "RDMA Write Only Immediate", RDMA_WRITE, ONLY, true, RETH, IMM_DT),
    RDMA_READ_REQUEST(0x0C, "RDMA Read Request", OperationKind.RDMA_READ_REQUEST, ONLY, false, RETH),
    RDMA_READ_RESPONSE_FIRST(0x0D, "RDMA Read Response First", RDMA_READ_RESPONSE, FIRST, true, AETH),
    // IBTA §9.4.4: middle read responses carry no AETH.
    RDMA_READ_RESPONSE_MIDDLE(0x0E, "RDMA Read Response Middle", RDMA_READ_RESPONSE, MIDDLE, true),
    RDMA_READ_RESPONSE_LAST(0x0F, "RDMA Read Response Last", RDMA_READ_RESPONSE, LAST, true, AETH),
    RDMA_READ_RESPONSE_ONLY(0x10, "RDMA Read Response Only", RDMA_READ_RESPONSE, ONLY, true, AETH),
    ACKNOWLEDGE(0x11, "Acknowledge", OperationKind.ACKNOWLEDGE, ONLY, false, AETH),
    ATOMIC_ACKNOWLEDGE(0x12, "Atomic Acknowledge", OperationKind.ATOMIC_ACKNOWLEDGE, ONLY, false, AETH, ATOMIC_ACK_ETH),
    COMPARE_SWAP(0x13, "Compare Swap", ATOMIC, ONLY, false, ATOMIC_ETH),
    FETCH_ADD(0x14, "Fetch Add", ATOMIC, ONLY, false, ATOMIC_ETH),
    // RD only; its headers (RDETH, DETH) come from the transport (IBTA §9.7.6.1.2).
    RESYNC(0x15, "Resync", OperationKind.RESYNC, ONLY, false),
    SEND_LAST_WITH_INVALIDATE(0x16, "Send Last Invalidate", SEND, LAST, true, IETH),
    SEND_ONLY_WITH_INVALIDATE(0x17, "Send Only Invalidate", SEND, ONLY, true, IETH),
    // IBTA 1.5 (memory placement extensions): FLUSH carries FETH then RETH, no payload.
    FLUSH(0x1C, "Flush", OperationKind.FLUSH, ONLY, false, FETH, RETH),
    // IBTA 1.5: ATOMIC WRITE carries RETH and exactly 8 bytes of payload (the value written).
    ATOMIC_WRITE(0x1D, "Atomic Write", OperationKind.ATOMIC_WRITE, ONLY, true, RETH),
    // RoCEv2 Annex A17.9.3: CNP is opcode 0x81 with 16 reserved bytes and no payload.
    CONGESTION_NOTIFICATION_PACKET(0x01, "CNP", CONGESTION_NOTIFICATION, ONLY, false, CNP_RESERVED);

    private final int code;
    private final String displayName;
    private final OperationKind kind;
    private final Position position;
    private final boolean carriesPayload;
    private final EnumSet<HeaderType> headers;

    Operation(int code, String displayName, OperationKind kind, Position position,
              boolean carriesPayload, HeaderType... headers) {
        this.code = code;
        this.displayName = displayName;
        this.kind = kind;
        this.position = position;
        this.carriesPayload = carriesPayload;
        this.headers = EnumSet.noneOf(HeaderType.class);
        Collections.addAll(this.headers, headers);
    }

    /** The low five bits of the opcode. */
    public int code() {
        return code;
    }

    /** Wireshark-style name without the transport, e.g. "RDMA Write First". */
    public String displayName() {
        return displayName;
    }

    public OperationKind kind() {
        return kind;
    }

    public Position position() {
        return position;
    }

    public Direction direction() {
        return kind.direction();
    }

    /** True when packets of this operation may carry a payload. */
    public boolean carriesPayload() {
        return carriesPayload;
    }

    /** The operation's own extension headers (a copy). */
    Set<HeaderType> headers() {
        return EnumSet.copyOf(headers);
    }
}
