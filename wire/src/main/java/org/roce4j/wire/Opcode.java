package org.roce4j.wire;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every BTH opcode IBTA defines, as data: each constant is a (transport, operation) pair, and
 * everything else is derived from the two, so the rules live in one place:
 * the code is {@code transport.prefix() | operation.code()}; the headers are the transport's
 * (RDETH/DETH/XRCETH) plus the operation's (RETH, AETH, ImmDt, ...), in IBTA wire order; header
 * offsets are sums of the preceding header lengths. The list of constants is the table of which
 * operations each transport allows (IBTA Vol. 1 §9.2 table 38).
 *
 * <p>Look up a received opcode byte with {@link #fromCode(int)}; codes that IBTA reserves
 * return an empty {@code Optional}, never an exception.
 */
public enum Opcode {
    // Reliable Connection (IBTA §9.2 table 38, plus FLUSH and ATOMIC WRITE from IBTA 1.5)
    RC_SEND_FIRST(Transport.RC, Operation.SEND_FIRST),
    RC_SEND_MIDDLE(Transport.RC, Operation.SEND_MIDDLE),
    RC_SEND_LAST(Transport.RC, Operation.SEND_LAST),
    RC_SEND_LAST_WITH_IMMEDIATE(Transport.RC, Operation.SEND_LAST_WITH_IMMEDIATE),
    RC_SEND_ONLY(Transport.RC, Operation.SEND_ONLY),
    RC_SEND_ONLY_WITH_IMMEDIATE(Transport.RC, Operation.SEND_ONLY_WITH_IMMEDIATE),
    RC_RDMA_WRITE_FIRST(Transport.RC, Operation.RDMA_WRITE_FIRST),
    RC_RDMA_WRITE_MIDDLE(Transport.RC, Operation.RDMA_WRITE_MIDDLE),
    RC_RDMA_WRITE_LAST(Transport.RC, Operation.RDMA_WRITE_LAST),
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(Transport.RC, Operation.RDMA_WRITE_LAST_WITH_IMMEDIATE),
    RC_RDMA_WRITE_ONLY(Transport.RC, Operation.RDMA_WRITE_ONLY),
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(Transport.RC, Operation.RDMA_WRITE_ONLY_WITH_IMMEDIATE),
    RC_RDMA_READ_REQUEST(Transport.RC, Operation.RDMA_READ_REQUEST),
    RC_RDMA_READ_RESPONSE_FIRST(Transport.RC, Operation.RDMA_READ_RESPONSE_FIRST),
    RC_RDMA_READ_RESPONSE_MIDDLE(Transport.RC, Operation.RDMA_READ_RESPONSE_MIDDLE),
    RC_RDMA_READ_RESPONSE_LAST(Transport.RC, Operation.RDMA_READ_RESPONSE_LAST),
    RC_RDMA_READ_RESPONSE_ONLY(Transport.RC, Operation.RDMA_READ_RESPONSE_ONLY),
    RC_ACKNOWLEDGE(Transport.RC, Operation.ACKNOWLEDGE),
    RC_ATOMIC_ACKNOWLEDGE(Transport.RC, Operation.ATOMIC_ACKNOWLEDGE),
    RC_COMPARE_SWAP(Transport.RC, Operation.COMPARE_SWAP),
    RC_FETCH_ADD(Transport.RC, Operation.FETCH_ADD),
    RC_SEND_LAST_WITH_INVALIDATE(Transport.RC, Operation.SEND_LAST_WITH_INVALIDATE),
    RC_SEND_ONLY_WITH_INVALIDATE(Transport.RC, Operation.SEND_ONLY_WITH_INVALIDATE),
    RC_FLUSH(Transport.RC, Operation.FLUSH),
    RC_ATOMIC_WRITE(Transport.RC, Operation.ATOMIC_WRITE),
    // Unreliable Connection: sends and writes only
    UC_SEND_FIRST(Transport.UC, Operation.SEND_FIRST),
    UC_SEND_MIDDLE(Transport.UC, Operation.SEND_MIDDLE),
    UC_SEND_LAST(Transport.UC, Operation.SEND_LAST),
    UC_SEND_LAST_WITH_IMMEDIATE(Transport.UC, Operation.SEND_LAST_WITH_IMMEDIATE),
    UC_SEND_ONLY(Transport.UC, Operation.SEND_ONLY),
    UC_SEND_ONLY_WITH_IMMEDIATE(Transport.UC, Operation.SEND_ONLY_WITH_IMMEDIATE),
    UC_RDMA_WRITE_FIRST(Transport.UC, Operation.RDMA_WRITE_FIRST),
    UC_RDMA_WRITE_MIDDLE(Transport.UC, Operation.RDMA_WRITE_MIDDLE),
    UC_RDMA_WRITE_LAST(Transport.UC, Operation.RDMA_WRITE_LAST),
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE(Transport.UC, Operation.RDMA_WRITE_LAST_WITH_IMMEDIATE),
    UC_RDMA_WRITE_ONLY(Transport.UC, Operation.RDMA_WRITE_ONLY),
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(Transport.UC, Operation.RDMA_WRITE_ONLY_WITH_IMMEDIATE),
    // Reliable Datagram: requests carry RDETH and DETH, responses RDETH (FLUSH and ATOMIC WRITE
    // codes as ib_pack.h and Wireshark 4.4 define them, headers by the same transport rule)
    RD_SEND_FIRST(Transport.RD, Operation.SEND_FIRST),
    RD_SEND_MIDDLE(Transport.RD, Operation.SEND_MIDDLE),
    RD_SEND_LAST(Transport.RD, Operation.SEND_LAST),
    RD_SEND_LAST_WITH_IMMEDIATE(Transport.RD, Operation.SEND_LAST_WITH_IMMEDIATE),
    RD_SEND_ONLY(Transport.RD, Operation.SEND_ONLY),
    RD_SEND_ONLY_WITH_IMMEDIATE(Transport.RD, Operation.SEND_ONLY_WITH_IMMEDIATE),
    RD_RDMA_WRITE_FIRST(Transport.RD, Operation.RDMA_WRITE_FIRST),
    RD_RDMA_WRITE_MIDDLE(Transport.RD, Operation.RDMA_WRITE_MIDDLE),
    RD_RDMA_WRITE_LAST(Transport.RD, Operation.RDMA_WRITE_LAST),
    RD_RDMA_WRITE_LAST_WITH_IMMEDIATE(Transport.RD, Operation.RDMA_WRITE_LAST_WITH_IMMEDIATE),
    RD_RDMA_WRITE_ONLY(Transport.RD, Operation.RDMA_WRITE_ONLY),
    RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE(Transport.RD, Operation.RDMA_WRITE_ONLY_WITH_IMMEDIATE),
    RD_RDMA_READ_REQUEST(Transport.RD, Operation.RDMA_READ_REQUEST),
    RD_RDMA_READ_RESPONSE_FIRST(Transport.RD, Operation.RDMA_READ_RESPONSE_FIRST),
    RD_RDMA_READ_RESPONSE_MIDDLE(Transport.RD, Operation.RDMA_READ_RESPONSE_MIDDLE),
    RD_RDMA_READ_RESPONSE_LAST(Transport.RD, Operation.RDMA_READ_RESPONSE_LAST),
    RD_RDMA_READ_RESPONSE_ONLY(Transport.RD, Operation.RDMA_READ_RESPONSE_ONLY),
    RD_ACKNOWLEDGE(Transport.RD, Operation.ACKNOWLEDGE),
    RD_ATOMIC_ACKNOWLEDGE(Transport.RD, Operation.ATOMIC_ACKNOWLEDGE),
    RD_COMPARE_SWAP(Transport.RD, Operation.COMPARE_SWAP),
    RD_FETCH_ADD(Transport.RD, Operation.FETCH_ADD),
    RD_RESYNC(Transport.RD, Operation.RESYNC),
    RD_FLUSH(Transport.RD, Operation.FLUSH),
    RD_ATOMIC_WRITE(Transport.RD, Operation.ATOMIC_WRITE),
    // Unreliable Datagram: single-packet sends only
    UD_SEND_ONLY(Transport.UD, Operation.SEND_ONLY),
    UD_SEND_ONLY_WITH_IMMEDIATE(Transport.UD, Operation.SEND_ONLY_WITH_IMMEDIATE),
    // RoCEv2 congestion notification (Annex A17.9.3)
    CNP(Transport.CNP, Operation.CONGESTION_NOTIFICATION_PACKET),
    // Extended Reliable Connection (Annex A14): RC's operations, XRCETH on requests
    XRC_SEND_FIRST(Transport.XRC, Operation.SEND_FIRST),
    XRC_SEND_MIDDLE(Transport.XRC, Operation.SEND_MIDDLE),
    XRC_SEND_LAST(Transport.XRC, Operation.SEND_LAST),
    XRC_SEND_LAST_WITH_IMMEDIATE(Transport.XRC, Operation.SEND_LAST_WITH_IMMEDIATE),
    XRC_SEND_ONLY(Transport.XRC, Operation.SEND_ONLY),
    XRC_SEND_ONLY_WITH_IMMEDIATE(Transport.XRC, Operation.SEND_ONLY_WITH_IMMEDIATE),
    XRC_RDMA_WRITE_FIRST(Transport.XRC, Operation.RDMA_WRITE_FIRST),
    XRC_RDMA_WRITE_MIDDLE(Transport.XRC, Operation.RDMA_WRITE_MIDDLE),
    XRC_RDMA_WRITE_LAST(Transport.XRC, Operation.RDMA_WRITE_LAST),
    XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE(Transport.XRC, Operation.RDMA_WRITE_LAST_WITH_IMMEDIATE),
    XRC_RDMA_WRITE_ONLY(Transport.XRC, Operation.RDMA_WRITE_ONLY),
    XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(Transport.XRC, Operation.RDMA_WRITE_ONLY_WITH_IMMEDIATE),
    XRC_RDMA_READ_REQUEST(Transport.XRC, Operation.RDMA_READ_REQUEST),
    XRC_RDMA_READ_RESPONSE_FIRST(Transport.XRC, Operation.RDMA_READ_RESPONSE_FIRST),
    XRC_RDMA_READ_RESPONSE_MIDDLE(Transport.XRC, Operation.RDMA_READ_RESPONSE_MIDDLE),
    XRC_RDMA_READ_RESPONSE_LAST(Transport.XRC, Operation.RDMA_READ_RESPONSE_LAST),
    XRC_RDMA_READ_RESPONSE_ONLY(Transport.XRC, Operation.RDMA_READ_RESPONSE_ONLY),
    XRC_ACKNOWLEDGE(Transport.XRC, Operation.ACKNOWLEDGE),
    XRC_ATOMIC_ACKNOWLEDGE(Transport.XRC, Operation.ATOMIC_ACKNOWLEDGE),
    XRC_COMPARE_SWAP(Transport.XRC, Operation.COMPARE_SWAP),
    XRC_FETCH_ADD(Transport.XRC, Operation.FETCH_ADD),
    XRC_SEND_LAST_WITH_INVALIDATE(Transport.XRC, Operation.SEND_LAST_WITH_INVALIDATE),
    XRC_SEND_ONLY_WITH_INVALIDATE(Transport.XRC, Operation.SEND_ONLY_WITH_INVALIDATE),
    XRC_FLUSH(Transport.XRC, Operation.FLUSH),
    XRC_ATOMIC_WRITE(Transport.XRC, Operation.ATOMIC_WRITE);

    private static final Opcode[] BY_CODE = new Opcode[256];
    /** For each opcode, the opcode of the same message at each {@link Position} (null where none). */
    private static final Opcode[][] AT_POSITION = new Opcode[values().length][Position.values().length];

    static {
        for (Opcode opcode : values()) {
            if (BY_CODE[opcode.code] != null) {
                throw new ExceptionInInitializerError("duplicate opcode 0x" + Integer.toHexString(opcode.code));
            }
            BY_CODE[opcode.code] = opcode;
        }
        for (Opcode opcode : values()) {
            for (Opcode other : values()) {
                if (opcode.continuesAs(other)) {
                    Opcode[] row = AT_POSITION[opcode.ordinal()];
                    if (row[other.position().ordinal()] != null) {
                        throw new ExceptionInInitializerError(opcode + " continues as two " + other.position());
                    }
                    row[other.position().ordinal()] = other;
                }
            }
        }
    }

    private final Transport transport;
    private final Operation operation;
    private final int code;
    private final List<HeaderType> headers;
    /** Offset of each header from the start of BTH, indexed by HeaderType ordinal; -1 when absent. */
    private final int[] offsets;
    private final int headersLength;

    Opcode(Transport transport, Operation operation) {
        this.transport = transport;
        this.operation = operation;
        this.code = transport.prefix() | operation.code();
        Set<HeaderType> all = EnumSet.of(HeaderType.BTH);
        all.addAll(transport.headersFor(operation));
        all.addAll(operation.headers());
        this.headers = List.copyOf(all); // EnumSet iterates in wire order
        this.offsets = new int[HeaderType.values().length];
        Arrays.fill(offsets, -1);
        int offset = 0;
        for (HeaderType header : headers) {
            offsets[header.ordinal()] = offset;
            offset += header.length();
        }
        this.headersLength = offset;
    }

    /** The opcode for a BTH opcode byte, or empty when IBTA reserves that code. */
    public static Optional<Opcode> fromCode(int code) {
        return Optional.ofNullable(lookup(code));
    }

    /**
     * The opcode a transport uses for an operation, e.g. (UC, SEND_FIRST) → UC_SEND_FIRST; empty
     * when the transport does not allow the operation (IBTA table 38: UD has no RDMA WRITE, ...).
     */
    public static Optional<Opcode> find(Transport transport, Operation operation) {
        Opcode opcode = lookup(transport.prefix() | operation.code());
        return opcode != null && opcode.operation == operation ? Optional.of(opcode) : Optional.empty();
    }

    /**
     * Allocation-free {@link #find} for the hot path, where the pair is known to be legal.
     *
     * @throws IllegalArgumentException when the transport does not allow the operation
     */
    public static Opcode of(Transport transport, Operation operation) {
        Opcode opcode = lookup(transport.prefix() | operation.code());
        if (opcode == null || opcode.operation != operation) {
            throw new IllegalArgumentException(transport + " has no " + operation);
        }
        return opcode;
    }

    /**
     * The opcode of packet {@code position} of the message this opcode belongs to, on the same
     * transport: the packets of one message share their kind, and the immediate or invalidate of
     * its LAST/ONLY packet (IBTA §9.4; rxe_req.c {@code next_opcode_rc}/{@code next_opcode_uc} spell
     * it out by hand). E.g. RC_SEND_ONLY_WITH_IMMEDIATE at FIRST is RC_SEND_FIRST, at LAST
     * RC_SEND_LAST_WITH_IMMEDIATE; RC_RDMA_READ_RESPONSE_ONLY at MIDDLE is ..._MIDDLE.
     *
     * @throws IllegalArgumentException when the message kind has no packet at that position
     *         (a READ request, an atomic, UD's sends are single-packet)
     */
    public Opcode at(Position position) {
        Opcode opcode = AT_POSITION[ordinal()][position.ordinal()];
        if (opcode == null) {
            throw new IllegalArgumentException(this + " has no " + position + " packet");
        }
        return opcode;
    }

    /**
     * Whether {@code other} is a packet of this opcode's message: same transport and kind, and, if
     * it ends the message, the same immediate/invalidate as this one (a FIRST or MIDDLE packet has
     * neither, so its message ends plain). Single-packet opcodes (atomics, ...) continue only as
     * themselves.
     */
    private boolean continuesAs(Opcode other) {
        if (position() == Position.ONLY && other.position() == Position.ONLY) {
            return this == other;
        }
        return transport == other.transport && kind() == other.kind()
                && (!other.position().endsMessage()
                        || other.hasImmediate() == hasImmediate() && other.hasInvalidate() == hasInvalidate());
    }

    /** Allocation-free lookup for the hot path: null when the code is reserved or out of range. */
    public static Opcode lookup(int code) {
        return (code & ~0xFF) == 0 ? BY_CODE[code] : null;
    }

    /** The BTH opcode byte. */
    public int code() {
        return code;
    }

    public Transport transport() {
        return transport;
    }

    public Operation operation() {
        return operation;
    }

    public OperationKind kind() {
        return operation.kind();
    }

    public Position position() {
        return operation.position();
    }

    public Direction direction() {
        return operation.direction();
    }

    /** True for requests (sends, writes, read requests, atomics, flush, resync). */
    public boolean isRequest() {
        return direction() == Direction.REQUEST;
    }

    /** True for ACK/NAK, read responses and atomic acknowledgements. */
    public boolean isResponse() {
        return direction() == Direction.RESPONSE;
    }

    /** True when packets with this opcode may carry a payload after their headers. */
    public boolean carriesPayload() {
        return operation.carriesPayload();
    }

    /**
     * True when the message this packet belongs to consumes a receive WQE at the responder:
     * every send, and RDMA WRITE with immediate (IBTA §9.4.3, §9.4.1.1). Which of its packets takes
     * the WQE and which completes it: {@link #takesReceiveWqe()}, {@link #completesReceiveWqe()}.
     */
    public boolean consumesReceiveWqe() {
        return kind() == OperationKind.SEND || hasImmediate() && kind() == OperationKind.RDMA_WRITE;
    }

    /**
     * True for the packet at which the responder takes the receive WQE (rxe's RXE_RWR_MASK): a
     * send's FIRST or ONLY packet, an RDMA WRITE with immediate's LAST or ONLY (IBTA §9.4.3: the
     * WQE is consumed when the immediate arrives).
     */
    public boolean takesReceiveWqe() {
        return consumesReceiveWqe()
                && (kind() == OperationKind.SEND ? position().startsMessage() : position().endsMessage());
    }

    /**
     * True for the packet that completes the receive WQE and so generates a receive completion
     * (rxe's RXE_COMP_MASK): the LAST or ONLY packet of a message that consumes one.
     */
    public boolean completesReceiveWqe() {
        return consumesReceiveWqe() && position().endsMessage();
    }

    /** True when the packet carries ImmDt (sends and RDMA writes with immediate, last or only). */
    public boolean hasImmediate() {
        return has(HeaderType.IMM_DT);
    }

    /** True when the packet carries an IETH (send with invalidate). */
    public boolean hasInvalidate() {
        return has(HeaderType.IETH);
    }

    /** The headers from BTH on, in wire order. */
    public List<HeaderType> headers() {
        return headers;
    }

    /** True when this opcode's packets carry {@code header}. */
    public boolean has(HeaderType header) {
        return offsets[header.ordinal()] >= 0;
    }

    /** Offset of {@code header} from the start of BTH, or -1 when this opcode does not carry it. */
    public int offsetOf(HeaderType header) {
        return offsets[header.ordinal()];
    }

    /** Total length of BTH and the extension headers: where the payload starts, relative to BTH. */
    public int headersLength() {
        return headersLength;
    }

    /** Wireshark's name for the opcode, e.g. "RC RDMA Write First" or "CNP". */
    public String displayName() {
        return transport == Transport.CNP ? "CNP" : transport.name() + " " + operation.displayName();
    }

    @Override
    public String toString() {
        return name();
    }

    /** All opcodes of one transport, in code order. */
    public static List<Opcode> of(Transport transport) {
        return Arrays.stream(values()).filter(o -> o.transport == transport).toList();
    }
}
