package org.roce4j.wire;

import java.util.Optional;

/** What {@link IbDecoder} made of one RoCEv1 frame or InfiniBand packet: decoded, or a typed drop. */
public sealed interface IbDecodeResult {

    /**
     * A well-formed packet whose ICRC (and, on InfiniBand, VCRC) verified.
     *
     * @param icrc the ICRC as carried
     * @param vcrc {@link VcrcStatus#VALID} on InfiniBand, {@link VcrcStatus#ABSENT} on RoCEv1
     */
    record Decoded(IbFrame frame, int icrc, VcrcStatus vcrc) implements IbDecodeResult {}

    /**
     * A packet that was not accepted. When only a CRC was wrong, {@link #parsed()} holds what the
     * packet said and the two statuses say which CRC failed; otherwise they are NOT_CHECKED / ABSENT.
     */
    record Dropped(DropReason reason, String detail, IbFrame parsedFrame, IcrcStatus icrc, VcrcStatus vcrc)
            implements IbDecodeResult {
        public Dropped {
            if (reason == null || detail == null || icrc == null || vcrc == null) {
                throw new IllegalArgumentException("reason, detail and statuses are required");
            }
        }

        /** The packet's content when everything but a CRC was well formed. */
        public Optional<IbFrame> parsed() {
            return Optional.ofNullable(parsedFrame);
        }
    }
}
