package org.roce4j.emulator.fabric;

import java.util.Objects;
import org.roce4j.wire.MacAddress;

/** A port as the fabric knows it: the address, the receiver, and the way back to the fabric. */
final class AttachedPort implements FabricPort {

    private final Fabric fabric;
    private final MacAddress mac;
    private final FrameReceiver receiver;

    AttachedPort(Fabric fabric, MacAddress mac, FrameReceiver receiver) {
        this.fabric = fabric;
        this.mac = Objects.requireNonNull(mac, "mac");
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    @Override
    public MacAddress mac() {
        return mac;
    }

    @Override
    public void transmit(byte[] frame, int offset, int length) {
        fabric.transmit(frame, offset, length, false);
    }

    @Override
    public boolean needsIcrc() {
        return fabric.needsIcrc();
    }

    @Override
    public void transmitUnchanged(byte[] frame, int offset, int length) {
        fabric.transmit(frame, offset, length, true);
    }

    @Override
    public byte[] transmitHandingOver(byte[] frame, int length) {
        return fabric.transmitHandingOver(frame, length, null);
    }

    @Override
    public byte[] transmitHandingOver(byte[] frame, int length, PayloadReference payload) {
        return fabric.transmitHandingOver(frame, length, payload);
    }

    @Override
    public Clock clock() {
        return fabric.clock();
    }

    FrameReceiver receiver() {
        return receiver;
    }

    @Override
    public String toString() {
        return "FabricPort[" + mac + "]";
    }
}
