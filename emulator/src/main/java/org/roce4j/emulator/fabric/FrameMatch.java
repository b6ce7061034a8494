package org.roce4j.emulator.fabric;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.roce4j.wire.MacAddress;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.PacketInfo;
import org.roce4j.wire.mad.CmAttribute;
import org.roce4j.wire.mad.MadHeader;

/**
 * Which frames a fault rule applies to: a link direction (source MAC, destination MAC, either
 * may be any) and a set of BTH opcodes (or any frame, RoCE or not), or connection-management
 * MADs of some types ({@link #cm}: the REQ, the RTU, …). Immutable; each method returns a
 * narrowed copy, so {@code FrameMatch.from(a).to(b).only(FrameClass.ACKS)} reads as it means.
 */
public final class FrameMatch {

    private static final FrameMatch ANY = new FrameMatch(null, null, null, null, "any frame");
    /** MAD header: the management class at byte 1, the attribute ID at bytes 16–17 (IBTA 13.4.3). */
    private static final int MGMT_CLASS_OFFSET = 1;
    private static final int ATTRIBUTE_ID_OFFSET = 16;

    /** Null: any source. */
    private final MacAddress source;
    /** Null: any destination. */
    private final MacAddress destination;
    /** Null: any frame, including frames that are not RoCEv2. */
    private final Set<Opcode> opcodes;
    /** Null: not limited to CM MADs; else the CM messages (by attribute) that match. */
    private final Set<CmAttribute> cmMessages;
    /** How the opcode set was asked for, for {@link #toString()}. */
    private final String what;

    private FrameMatch(MacAddress source, MacAddress destination, Set<Opcode> opcodes, Set<CmAttribute> cmMessages,
                       String what) {
        this.source = source;
        this.destination = destination;
        this.opcodes = opcodes;
        this.cmMessages = cmMessages;
        this.what = what;
    }

    /** {@return every frame, in both directions} */
    public static FrameMatch any() {
        return ANY;
    }

    /** {@return frames transmitted by the port with this MAC} */
    public static FrameMatch from(MacAddress source) {
        return ANY.andFrom(source);
    }

    /** {@return frames addressed to the port with this MAC} */
    public static FrameMatch to(MacAddress destination) {
        return ANY.andTo(destination);
    }

    /** {@return RoCEv2 frames whose opcode is in one of these classes} */
    public static FrameMatch only(FrameClass... classes) {
        return ANY.andOnly(classes);
    }

    /** {@return RoCEv2 frames with one of these opcodes} */
    public static FrameMatch opcodes(Opcode... opcodes) {
        return ANY.andOpcodes(opcodes);
    }

    /**
     * {@return connection-management MADs carrying one of these messages: UD SEND Only to QP 1 whose
     * MAD is of the CM class with that attribute (e.g. {@code FrameMatch.cm(CmAttribute.REQ)})}
     */
    public static FrameMatch cm(CmAttribute... messages) {
        return ANY.andCm(messages);
    }

    /** {@return these frames, if they are CM MADs carrying one of these messages} */
    public FrameMatch andCm(CmAttribute... messages) {
        if (messages.length == 0) {
            throw new IllegalArgumentException("no CM message given");
        }
        EnumSet<CmAttribute> set = EnumSet.copyOf(Arrays.asList(messages));
        return new FrameMatch(source, destination, EnumSet.of(Opcode.UD_SEND_ONLY), set,
                "CM " + set.stream().map(CmAttribute::name).collect(Collectors.joining(" or ")));
    }

    /** {@return these frames, if transmitted by the port with this MAC} */
    public FrameMatch andFrom(MacAddress mac) {
        return new FrameMatch(Objects.requireNonNull(mac, "mac"), destination, opcodes, cmMessages, what);
    }

    /** {@return these frames, if addressed to the port with this MAC} */
    public FrameMatch andTo(MacAddress mac) {
        return new FrameMatch(source, Objects.requireNonNull(mac, "mac"), opcodes, cmMessages, what);
    }

    /** {@return these frames, if RoCEv2 with an opcode in one of these classes} */
    public FrameMatch andOnly(FrameClass... classes) {
        if (classes.length == 0) {
            throw new IllegalArgumentException("no frame class given");
        }
        EnumSet<Opcode> set = EnumSet.noneOf(Opcode.class);
        for (FrameClass c : classes) {
            set.addAll(c.opcodes());
        }
        return new FrameMatch(source, destination, set, null,
                Arrays.stream(classes).map(FrameClass::name).collect(Collectors.joining(" or ")));
    }

    /** {@return these frames, if RoCEv2 with one of these opcodes} */
    public FrameMatch andOpcodes(Opcode... chosen) {
        if (chosen.length == 0) {
            throw new IllegalArgumentException("no opcode given");
        }
        EnumSet<Opcode> set = EnumSet.copyOf(Arrays.asList(chosen));
        return new FrameMatch(source, destination, set, null,
                set.stream().map(Opcode::name).collect(Collectors.joining(" or ")));
    }

    /**
     * @param sourceMac bytes 6..11 of the frame as a number
     * @param destinationMac bytes 0..5 of the frame as a number
     * @param opcode the frame's BTH opcode, or null if it is not a RoCEv2 frame
     */
    boolean matches(long sourceMac, long destinationMac, Opcode opcode) {
        return (source == null || source.value() == sourceMac)
                && (destination == null || destination.value() == destinationMac)
                && (opcodes == null || opcode != null && opcodes.contains(opcode));
    }

    /**
     * As {@link #matches(long, long, Opcode)}, and for a CM match the packet must be a CM MAD to QP 1
     * with one of the attributes.
     *
     * @param packet the frame parsed (its opcode the one given), or null when it is not RoCEv2
     */
    boolean matches(long sourceMac, long destinationMac, Opcode opcode, PacketInfo packet) {
        if (!matches(sourceMac, destinationMac, opcode)) {
            return false;
        }
        if (cmMessages == null) {
            return true;
        }
        if (packet == null || packet.destQp() != MadHeader.GSI_QPN || packet.payloadLength() < MadHeader.HEADER_LENGTH) {
            return false;
        }
        byte[] b = packet.buffer();
        int mad = packet.payloadOffset();
        if ((b[mad + MGMT_CLASS_OFFSET] & 0xFF) != MadHeader.CLASS_CM) {
            return false;
        }
        int attribute = (b[mad + ATTRIBUTE_ID_OFFSET] & 0xFF) << 8 | b[mad + ATTRIBUTE_ID_OFFSET + 1] & 0xFF;
        for (CmAttribute message : cmMessages) {
            if (message.id() == attribute) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return what + " from " + (source == null ? "any" : source) + " to " + (destination == null ? "any" : destination);
    }
}
