package org.roce4j.wire.mad;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.roce4j.wire.DecodeResult;
import org.roce4j.wire.Deth;
import org.roce4j.wire.Opcode;
import org.roce4j.wire.RoceDecoder;
import org.roce4j.wire.RoceFrame;
import org.roce4j.wire.pcap.PcapReader;
import org.roce4j.wire.pcap.PcapRecord;
import org.roce4j.wire.pcap.ReferencePcaps;

/**
 * The MADs of a reference capture: every UD SEND Only to QP 1, read with wire's pcap reader and
 * RoceDecoder, numbered as tshark numbers frames (from 1).
 */
final class CmCaptures {
    static final String RPING_CM = "rxe_rping_cm.pcap";
    static final String UDADDY_SIDR = "rxe_udaddy_sidr.pcap";
    static final String RPING_REJECT = "rxe_rping_reject.pcap";
    static final String UCMATOSE = "rxe_ucmatose.pcap";

    /** One MAD: the frame it came in and its UD payload. */
    record Mad(int frameNumber, RoceFrame frame, byte[] payload) {
        Deth deth() {
            return frame.packet().header(Deth.class).orElseThrow();
        }

        DecodedCmMad decode() {
            return CmMad.decode(payload, 0, payload.length);
        }

        CmMessage message() {
            return ((DecodedCmMad.Decoded) decode()).message();
        }

        MadHeader header() {
            return ((DecodedCmMad.Decoded) decode()).header();
        }
    }

    private CmCaptures() {
    }

    static Path path(String capture) {
        return ReferencePcaps.directory().resolve(capture);
    }

    static List<Mad> mads(String capture) throws IOException {
        RoceDecoder decoder = new RoceDecoder();
        List<Mad> mads = new ArrayList<>();
        int number = 0;
        try (PcapReader reader = PcapReader.open(path(capture))) {
            for (PcapRecord record : reader) {
                number++;
                if (decoder.decode(record.data()) instanceof DecodeResult.Decoded decoded
                        && decoded.frame().packet().opcode() == Opcode.UD_SEND_ONLY
                        && decoded.frame().packet().bth().destQp() == MadHeader.GSI_QPN) {
                    mads.add(new Mad(number, decoded.frame(), decoded.frame().packet().payload()));
                }
            }
        }
        return mads;
    }

    static Mad frame(String capture, int frameNumber) throws IOException {
        return mads(capture).stream().filter(m -> m.frameNumber() == frameNumber).findFirst()
                .orElseThrow(() -> new AssertionError("no MAD in frame " + frameNumber + " of " + capture));
    }
}
