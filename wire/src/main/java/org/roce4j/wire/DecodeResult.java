package org.roce4j.wire;

import java.util.Optional;

/** What {@link RoceDecoder} made of one frame: a decoded RoCEv2 frame, or a typed drop. */
public sealed interface DecodeResult {

    /** A well-formed RoCEv2 frame whose ICRC verified. */
    record Decoded(RoceFrame frame, int icrc) implements DecodeResult {}

    /**
     * A frame that was not accepted. When the frame parsed but its ICRC was wrong,
     * {@link #parsed()} still holds what it said, for display.
     */
    record Dropped(DropReason reason, String detail, RoceFrame parsedFrame) implements DecodeResult {
        public Dropped {
            if (reason == null || detail == null) {
                throw new IllegalArgumentException("reason and detail are required");
            }
        }

        /** The frame's content when everything but the ICRC was well formed. */
        public Optional<RoceFrame> parsed() {
            return Optional.ofNullable(parsedFrame);
        }
    }
}
