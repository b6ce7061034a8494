package org.roce4j.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The ICRC Linux rxe puts on an RC FLUSH ({@link IcrcCalculator#flushAsRxe}): IBTA's input, then the BTH, FETH and
 * RETH once more. The frames are from {@code interop/flush} against rxe0 of kernel 6.12 (2026-11-26): the emulator's
 * FLUSH (GLOBAL, level MR) to rxe, which rxe answered with the RDMA READ Response Only after it — so rxe's own check
 * accepted that ICRC.
 */
class RxeFlushIcrcTest {
    /** Frame 17: RC FLUSH, PSN 5, FETH sel=1 placement=1, RETH va=0 rkey=0x238 len=1 MiB; ICRC 0xf4da54b5. */
    private static final byte[] FLUSH_RXE_ACCEPTED = HexFormat.of().parseHex(
            "52540000770286e8658455250800450000400000400040111f59c0a84d01c0a84d0212b712b7002c1b921c00ffff0000"
                    + "0011800000050000001100000000000000000000023800100000b554daf4");
    /** Frame 18: rxe's answer to it, an RDMA READ Response Only of no payload (IBTA's ICRC, as every other opcode). */
    private static final byte[] ANSWER_FROM_RXE = HexFormat.of().parseHex(
            "86e865845525525400007702080045000030327b40004011ecedc0a84d02c0a84d01f0e812b7001c00001000ffff00b4"
                    + "ca5d000000051f0000030726c0cc");
    private static final int IP = EthernetHeader.LENGTH;

    @Test
    @DisplayName("rxe's FLUSH ICRC: the value on a FLUSH rxe 6.12 accepted, and not IBTA's")
    void anRcFlushAsRxeComputesIt() {
        IcrcCalculator rxe = new IcrcCalculator();
        rxe.flushAsRxe(true);
        int icrcOffset = FLUSH_RXE_ACCEPTED.length - IcrcCalculator.LENGTH;
        assertThat(rxe.compute(FLUSH_RXE_ACCEPTED, IP, icrcOffset)).isEqualTo(0xf4da54b5);
        assertThat(rxe.verify(FLUSH_RXE_ACCEPTED, IP, icrcOffset)).isTrue();
        assertThat(new IcrcCalculator().verify(FLUSH_RXE_ACCEPTED, IP, icrcOffset)).isFalse();
    }

    @Test
    @DisplayName("The CRC's input grows by the 32 bytes from the BTH for an RC FLUSH computed as rxe does, by none otherwise")
    void coveredLengthCountsTheRepeatedHeaders() {
        IcrcCalculator rxe = new IcrcCalculator();
        rxe.flushAsRxe(true);
        int icrcOffset = FLUSH_RXE_ACCEPTED.length - IcrcCalculator.LENGTH;
        int ibta = new IcrcCalculator().coveredLength(FLUSH_RXE_ACCEPTED, IP, icrcOffset);
        assertThat(ibta).isEqualTo(8 + icrcOffset - IP);
        assertThat(rxe.coveredLength(FLUSH_RXE_ACCEPTED, IP, icrcOffset)).isEqualTo(ibta + 32);
        int answerIcrc = ANSWER_FROM_RXE.length - IcrcCalculator.LENGTH;
        assertThat(rxe.coveredLength(ANSWER_FROM_RXE, IP, answerIcrc)).isEqualTo(8 + answerIcrc - IP);
    }

    @Test
    @DisplayName("flushAsRxe touches RC FLUSH alone: rxe's READ response verifies either way")
    void otherOpcodesKeepIbtasIcrc() {
        IcrcCalculator rxe = new IcrcCalculator();
        rxe.flushAsRxe(true);
        int icrcOffset = ANSWER_FROM_RXE.length - IcrcCalculator.LENGTH;
        assertThat(rxe.verify(ANSWER_FROM_RXE, IP, icrcOffset)).isTrue();
        assertThat(new IcrcCalculator().verify(ANSWER_FROM_RXE, IP, icrcOffset)).isTrue();
    }

    @Test
    @DisplayName("A parse that expects IBTA's ICRC drops rxe's FLUSH as BAD_ICRC and says whose ICRC it carries; one "
            + "that expects rxe's accepts it, and says of IBTA's that rxe refuses it")
    void packetInfoNamesTheOtherWay() {
        PacketInfo ibta = new PacketInfo();
        assertThat(ibta.parseFrame(FLUSH_RXE_ACCEPTED, 0, FLUSH_RXE_ACCEPTED.length)).isFalse();
        assertThat(ibta.dropReason()).isEqualTo(DropReason.BAD_ICRC);
        assertThat(ibta.dropDetail()).endsWith("0xf4da54b5 on the wire, 0x1e15c892 computed; it is the ICRC Linux rxe "
                + "puts on an RC FLUSH (BTH, FETH and RETH counted twice))");

        PacketInfo rxe = new PacketInfo();
        rxe.flushIcrcAsRxe(true);
        assertThat(rxe.parseFrame(FLUSH_RXE_ACCEPTED, 0, FLUSH_RXE_ACCEPTED.length)).isTrue();
        assertThat(rxe.opcode()).isEqualTo(Opcode.RC_FLUSH);

        byte[] withIbtasIcrc = FLUSH_RXE_ACCEPTED.clone();
        new IcrcCalculator().fill(withIbtasIcrc, IP, withIbtasIcrc.length - IcrcCalculator.LENGTH);
        assertThat(rxe.parseFrame(withIbtasIcrc, 0, withIbtasIcrc.length)).isFalse();
        assertThat(rxe.dropDetail()).endsWith("; it is IBTA's ICRC, which Linux rxe refuses on an RC FLUSH)");
        assertThat(rxe.parseFrame(FLUSH_RXE_ACCEPTED, 0, FLUSH_RXE_ACCEPTED.length))
                .as("naming the other way left the parse expecting rxe's ICRC").isTrue();
    }
}
