package org.roce4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.roce4j.wire.MacAddress;

class RewriteRulesTest {
    @Test
    @DisplayName("--rewrite reads every part; qpn= repeats across options; numbers decimal or hex; printed back in hex")
    void everyPart() {
        RewriteRules rules = RewriteRules.parse(List.of(
                "src-mac=02:00:00:00:00:01,dst-mac=52-54-00-00-77-02,src-ip=192.168.77.1,dst-ip=fe80::1,qpn=0x11:0x12",
                "qpn=35:0x24,psn=+0x10"));

        assertThat(rules.sourceMac()).contains(MacAddress.parse("02:00:00:00:00:01"));
        assertThat(rules.destinationMac()).contains(MacAddress.parse("52:54:00:00:77:02"));
        assertThat(rules.sourceIp()).contains(InetAddress.ofLiteral("192.168.77.1"));
        assertThat(rules.destinationIp()).contains(InetAddress.ofLiteral("fe80::1"));
        assertThat(rules.qpns()).isEqualTo(Map.of(0x11, 0x12, 35, 0x24));
        assertThat(rules.psn(0xfffff8)).isEqualTo(0x000008);
        assertThat(rules.toString()).isEqualTo("src-mac=02:00:00:00:00:01,dst-mac=52:54:00:00:77:02,src-ip=192.168.77.1,"
                + "dst-ip=fe80::1,qpn=0x000011:0x000012,qpn=0x000023:0x000024,psn=+0x000010");
        assertThat(RewriteRules.parse(List.of(rules.toString())).qpns()).isEqualTo(rules.qpns());
    }

    @Test
    @DisplayName("no --rewrite changes nothing and says 'none'; psn=-1 is a shift by 2^24 - 1")
    void noneAndNegativeShift() {
        assertThat(RewriteRules.parse(List.of())).isEqualTo(RewriteRules.NONE).hasToString("none");
        assertThat(RewriteRules.parse(List.of("psn=-1")).psn(0)).isEqualTo(0xffffff);
        assertThat(RewriteRules.parse(List.of("psn=-1")).psnDelta()).isEqualTo(0xffffff);
    }

    @ParameterizedTest(name = "--rewrite {0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "ttl=3|unknown rewrite 'ttl' (one of src-mac, dst-mac, src-ip, dst-ip, qpn, psn)",
        "qpn=0x11|qpn=0x11: expected qpn=OLD:NEW, e.g. qpn=0x11:0x12",
        "qpn=0x11:0x1000000|QP number 0x1000000 is not 24 bits",
        "qpn=eleven:0x12|QP number 'eleven' is not a number (decimal or 0x hex)",
        "psn=+0x1000000|PSN shift +0x1000000 is more than 24 bits",
        "src-ip=rxe.example|'rxe.example' is not an IPv4 or IPv6 address",
        "dst-mac|'dst-mac' is not NAME=VALUE",
        "src-mac=02:00:00|not a MAC address: 02:00:00"})
    void wrongPartsAreNamed(String spec, String message) {
        assertThatThrownBy(() -> RewriteRules.parse(List.of(spec))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
