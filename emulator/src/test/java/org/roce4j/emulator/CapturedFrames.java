package org.roce4j.emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.roce4j.emulator.fabric.Fabric;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;

/** Every frame a fabric carried, read back from its pcap tap and decoded (the ICRC verified) by wire. */
final class CapturedFrames {
    private final Path file;

    CapturedFrames(Fabric fabric) {
        try {
            file = Files.createTempFile("roce4j-emulator-", ".pcap");
            file.toFile().deleteOnExit();
            fabric.tap(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The captured frames' bytes, in order; call after the fabric was closed (which flushes the tap). */
    List<byte[]> bytes() {
        List<byte[]> frames = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(file)) {
            for (PcapRecord record : reader) {
                frames.add(record.data());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return frames;
    }

    /** Decodes the capture; call after the fabric was closed (which flushes the tap). */
    List<RoceFrame> frames() {
        List<RoceFrame> frames = new ArrayList<>();
        RoceDecoder decoder = new RoceDecoder();
        try (PcapReader reader = PcapReader.open(file)) {
            for (PcapRecord record : reader) {
                DecodeResult result = decoder.decode(record.data());
                if (!(result instanceof DecodeResult.Decoded decoded)) {
                    throw new AssertionError("the emulator sent a frame wire drops: " + result);
                }
                frames.add(decoded.frame());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return frames;
    }
}
