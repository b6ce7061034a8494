package org.roce4j.wire.mad;

import static org.quicktheories.generators.SourceDSL.longs;

import java.util.Random;
import org.quicktheories.core.Gen;

/**
 * Random CM messages and MAD headers: every field a random value of its wire width, private data
 * the whole field. Built from one random seed per example, so a failure shows the message.
 */
final class CmGenerators {

    private CmGenerators() {
    }

    static Gen<CmMessage> messages(CmAttribute attribute) {
        return longs().all().map(seed -> message(attribute, new Random(seed)));
    }

    static Gen<MadHeader> headers() {
        return longs().all().map(seed -> {
            Random r = new Random(seed);
            return new MadHeader(bits(r, 8), bits(r, 8), bits(r, 8), bits(r, 8), bits(r, 16), bits(r, 16),
                    r.nextLong(), bits(r, 16), r.nextInt());
        });
    }

    static CmMessage message(CmAttribute attribute, Random r) {
        return switch (attribute) {
            case REQ -> new ConnectRequest(r.nextInt(), r.nextLong(), r.nextLong(), r.nextInt(), bits(r, 24),
                    bits(r, 8), bits(r, 24), bits(r, 8), bits(r, 24), bits(r, 5), bits(r, 2), r.nextBoolean(),
                    bits(r, 24), bits(r, 5), bits(r, 3), bits(r, 16), bits(r, 4), r.nextBoolean(), bits(r, 3),
                    bits(r, 4), r.nextBoolean(), bits(r, 3), path(r), path(r),
                    bytes(r, ConnectRequest.PRIVATE_DATA_LENGTH));
            case MRA -> new MessageReceiptAck(r.nextInt(), r.nextInt(), bits(r, 2), bits(r, 5),
                    bytes(r, MessageReceiptAck.PRIVATE_DATA_LENGTH));
            case REJ -> new ConnectReject(r.nextInt(), r.nextInt(), bits(r, 2), bits(r, 7), bits(r, 16),
                    bytes(r, ConnectReject.ARI_LENGTH), bytes(r, ConnectReject.PRIVATE_DATA_LENGTH));
            case REP -> new ConnectReply(r.nextInt(), r.nextInt(), r.nextInt(), bits(r, 24), bits(r, 24), bits(r, 24),
                    bits(r, 8), bits(r, 8), bits(r, 5), bits(r, 2), r.nextBoolean(), bits(r, 3), r.nextBoolean(),
                    r.nextLong(), bytes(r, ConnectReply.PRIVATE_DATA_LENGTH));
            case RTU -> new ReadyToUse(r.nextInt(), r.nextInt(), bytes(r, ReadyToUse.PRIVATE_DATA_LENGTH));
            case DREQ -> new DisconnectRequest(r.nextInt(), r.nextInt(), bits(r, 24),
                    bytes(r, DisconnectRequest.PRIVATE_DATA_LENGTH));
            case DREP -> new DisconnectReply(r.nextInt(), r.nextInt(), bytes(r, DisconnectReply.PRIVATE_DATA_LENGTH));
            case SIDR_REQ -> new SidrRequest(r.nextInt(), bits(r, 16), r.nextLong(),
                    bytes(r, SidrRequest.PRIVATE_DATA_LENGTH));
            case SIDR_REP -> new SidrReply(r.nextInt(), bits(r, 8), bits(r, 8), bits(r, 24), r.nextLong(), r.nextInt(),
                    bytes(r, SidrReply.CLASS_PORT_INFO_LENGTH), bytes(r, SidrReply.PRIVATE_DATA_LENGTH));
            case CLASS_PORT_INFO, LAP, APR -> throw new IllegalArgumentException(attribute + " has no message");
        };
    }

    static CmPath path(Random r) {
        return new CmPath(bits(r, 16), bits(r, 16), bytes(r, 16), bytes(r, 16), bits(r, 20), bits(r, 6), bits(r, 8),
                bits(r, 8), bits(r, 4), r.nextBoolean(), bits(r, 5));
    }

    static int bits(Random r, int width) {
        return (int) (r.nextLong() >>> (Long.SIZE - width));
    }

    static byte[] bytes(Random r, int length) {
        byte[] bytes = new byte[length];
        r.nextBytes(bytes);
        return bytes;
    }
}
