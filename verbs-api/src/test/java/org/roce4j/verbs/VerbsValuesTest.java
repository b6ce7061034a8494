package org.roce4j.verbs;

import java.util.EnumSet;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The enum values and wording are libibverbs', so that numbers and messages match C programs. */
class VerbsValuesTest {
    @Test
    @DisplayName("ibv_wc_status values and ibv_wc_status_str wording")
    void wcStatusValuesAndWording() {
        assertThat(WcStatus.REM_ACCESS_ERR.value()).isEqualTo(10);
        assertThat(WcStatus.WR_FLUSH_ERR.value()).isEqualTo(5);
        assertThat(WcStatus.GENERAL_ERR.value()).isEqualTo(21);
        assertThat(WcStatus.WR_FLUSH_ERR.describe()).isEqualTo("Work Request Flushed Error");
        assertThat(WcStatus.RETRY_EXC_ERR.describe()).isEqualTo("transport retry counter exceeded");
        assertThat(WcStatus.of(13)).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
    }

    @Test
    @DisplayName("ibv_qp_attr_mask, ibv_access_flags, ibv_wr_opcode and ibv_wc_opcode bits")
    void bitValues() {
        assertThat(QpAttrMask.DEST_QPN.bit()).isEqualTo(1 << 20);
        assertThat(QpAttrMask.bits(EnumSet.of(QpAttrMask.STATE, QpAttrMask.AV))).isEqualTo(0x81);
        assertThat(QpAttrMask.of(0x81)).containsExactlyInAnyOrder(QpAttrMask.STATE, QpAttrMask.AV);
        assertThat(AccessFlag.bits(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_ATOMIC))).isEqualTo(9);
        assertThat(WrOpcode.SEND_WITH_INV.value()).isEqualTo(9);
        assertThat(WcOpcode.RECV_RDMA_WITH_IMM.value()).isEqualTo(129);
        assertThat(WcOpcode.RECV_RDMA_WITH_IMM.isReceive()).isTrue();
        assertThat(WcOpcode.FETCH_ADD.isReceive()).isFalse();
        assertThat(Mtu.ofBytes(4096).value()).isEqualTo(5);
    }

    @Test
    @DisplayName("IBTA table 38: READ and atomics on RC only, WRITE on RC and UC, SEND everywhere")
    void operationsPerService() {
        assertThat(WrOpcode.RDMA_READ.isAllowedOn(QpType.UC)).isFalse();
        assertThat(WrOpcode.ATOMIC_FETCH_AND_ADD.isAllowedOn(QpType.RC)).isTrue();
        assertThat(WrOpcode.RDMA_WRITE.isAllowedOn(QpType.UC)).isTrue();
        assertThat(WrOpcode.RDMA_WRITE.isAllowedOn(QpType.UD)).isFalse();
        assertThat(WrOpcode.SEND_WITH_IMM.isAllowedOn(QpType.UD)).isTrue();
    }

    @Test
    @DisplayName("GIDs: IPv4-mapped and IPv6, printed like ibv_devinfo")
    void gids() throws Exception {
        Gid mapped = Gid.parse("::ffff:10.0.0.2");
        assertThat(mapped.isIpv4Mapped()).isTrue();
        assertThat(mapped.toString()).isEqualTo("0000:0000:0000:0000:0000:ffff:0a00:0002");
        assertThat(mapped.toInetAddress().getHostAddress()).isEqualTo("10.0.0.2");
        assertThat(Gid.of(mapped.raw())).isEqualTo(mapped);
        Gid linkLocal = Gid.parse("fe80::1");
        assertThat(linkLocal.isIpv4Mapped()).isFalse();
        assertThat(linkLocal.subnetPrefix()).isEqualTo(0xfe80_0000_0000_0000L);
        assertThatThrownBy(() -> Gid.of(new byte[4])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("rdma_is_multicast_addr: ff00::/8 and IPv4-mapped 224.0.0.0/4 are multicast GIDs, nothing else")
    void multicastGidsAreFf00AndMapped224Slash4() {
        assertThat(Gid.parse("ff0e::1:2:3").isMulticast()).isTrue();
        assertThat(Gid.parse("ff00::").isMulticast()).isTrue();
        assertThat(Gid.parse("::ffff:224.0.0.1").isMulticast()).isTrue();
        assertThat(Gid.parse("::ffff:239.255.255.255").isMulticast()).isTrue();
        assertThat(Gid.parse("::ffff:223.255.255.255").isMulticast()).isFalse();
        assertThat(Gid.parse("::ffff:240.0.0.1").isMulticast()).isFalse();
        assertThat(Gid.parse("fe80::1").isMulticast()).isFalse();
        assertThat(Gid.parse("::239.1.1.1").isMulticast()).isFalse(); // IPv4-compatible, not mapped
    }

    @Test
    @DisplayName("A reused SendWr keeps its SGE capacity and forgets its fields on reset")
    void sendWrReuse() {
        SendWr wr = new SendWr().wrId(7).opcode(WrOpcode.RDMA_WRITE).signaled(true)
                .sge(0x1000, 64, 0x101).sge(0x2000, 32, 0x101).sge(0x3000, 16, 0x202).remote(0x9000, 0x303);
        assertThat(wr.sgList().count()).isEqualTo(3);
        assertThat(wr.sgList().totalLength()).isEqualTo(112);
        assertThat(wr.has(SendFlag.SIGNALED)).isTrue();
        wr.reset();
        assertThat(wr.sgList().count()).isZero();
        assertThat(wr.sendFlags()).isZero();
        assertThat(wr.opcode()).isEqualTo(WrOpcode.SEND);
        assertThat(wr.rkey()).isZero();
    }

    @Test
    @DisplayName("VerbsException carries the errno and strerror's text")
    void exceptionCarriesErrno() {
        VerbsException e = new BadWorkRequestException(Errno.ENOMEM, 2, 42, "send queue full");
        assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
        assertThat(e.getMessage()).contains("ENOMEM", "Cannot allocate memory", "#2", "wr_id 42");
        assertThat(Errno.of(22)).isEqualTo(Errno.EINVAL);
    }

    @Test
    @DisplayName("roce4j.provider naming a missing provider is ENODEV")
    void missingProviderIsEnodev() {
        String old = System.getProperty(Verbs.PROVIDER_PROPERTY);
        System.setProperty(Verbs.PROVIDER_PROPERTY, "no-such-backend");
        try {
            assertThatThrownBy(Verbs::provider).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV));
        } finally {
            if (old == null) {
                System.clearProperty(Verbs.PROVIDER_PROPERTY);
            } else {
                System.setProperty(Verbs.PROVIDER_PROPERTY, old);
            }
        }
    }

    @Test
    @DisplayName("WorkCompletion.toString prints qp_num and src_qp in hex, as rdma-core's tools, the testkit and decode do")
    void workCompletionPrintsQpNumbersInHex() {
        WorkCompletion receive = new WorkCompletion(7, WcStatus.SUCCESS, WcOpcode.RECV, 0, 64, 0, 0, 0x11, 0x2a, 0, 0, 0,
                0, 0);

        assertThat(receive.toString()).contains(" qp_num=0x000011", " src_qp=0x00002a");
    }
}
