package org.roce4j.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.roce4j.verbs.AhAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.QpType;

class CmValuesTest {
    @Test
    void eventTypesCarryLibrdmacmsValuesAndNames() {
        assertThat(CmEventType.ADDR_RESOLVED.value()).isZero();
        assertThat(CmEventType.CONNECT_REQUEST.value()).isEqualTo(4);
        assertThat(CmEventType.REJECTED.value()).isEqualTo(8);
        assertThat(CmEventType.ESTABLISHED.value()).isEqualTo(9);
        assertThat(CmEventType.TIMEWAIT_EXIT.value()).isEqualTo(15);
        for (CmEventType type : CmEventType.values()) {
            assertThat(CmEventType.of(type.value())).contains(type);
        }
        assertThat(CmEventType.of(16)).isEmpty();
        assertThat(CmEventType.of(-1)).isEmpty();
        assertThat(CmEventType.DISCONNECTED.cName()).isEqualTo("RDMA_CM_EVENT_DISCONNECTED");
    }

    @Test
    void portSpacesCarryLibrdmacmsValuesAndTheServiceIdByte() {
        assertThat(PortSpace.TCP.value()).isEqualTo(0x0106);
        assertThat(PortSpace.UDP.value()).isEqualTo(0x0111);
        assertThat(PortSpace.IB.value()).isEqualTo(0x013F);
        assertThat(PortSpace.IPOIB.value()).isEqualTo(0x0002);
        assertThat(PortSpace.TCP.serviceIdByte()).isEqualTo(0x06);
        assertThat(PortSpace.UDP.serviceIdByte()).isEqualTo(0x11);
        assertThat(PortSpace.TCP.qpType()).isEqualTo(QpType.RC);
        assertThat(PortSpace.UDP.qpType()).isEqualTo(QpType.UD);
        assertThat(PortSpace.of(0x0106)).contains(PortSpace.TCP);
        assertThat(PortSpace.of(0x0107)).isEmpty();
    }

    @Test
    void privateDataLimitsAreTheMessageFieldsLessRdmaCmsHeader() {
        assertThat(PrivateDataLimits.connect(PortSpace.TCP)).isEqualTo(56);
        assertThat(PrivateDataLimits.connect(PortSpace.UDP)).isEqualTo(180);
        assertThat(PrivateDataLimits.connect(PortSpace.IB)).isEqualTo(92);
        assertThat(PrivateDataLimits.accept(PortSpace.TCP)).isEqualTo(196);
        assertThat(PrivateDataLimits.accept(PortSpace.UDP)).isEqualTo(136);
        assertThat(PrivateDataLimits.REJ).isEqualTo(148);
    }

    @Test
    void connParamFieldsMustFitTheirCTypes() {
        assertThatThrownBy(() -> ConnParam.defaults().withRetries(8, 7)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retry_count 8");
        assertThatThrownBy(() -> ConnParam.defaults().withReadDepths(256, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ConnParam.of(new byte[256])).isInstanceOf(IllegalArgumentException.class);
        assertThat(ConnParam.of(new byte[255]).privateData()).hasSize(255);
    }

    @Test
    void connParamIsAValueThatCopiesItsPrivateData() {
        byte[] data = {1, 2, 3};
        ConnParam param = ConnParam.of(data);
        data[0] = 9;
        assertThat(param.privateData()).containsExactly(1, 2, 3);
        param.privateData()[1] = 9;
        assertThat(param.privateData()).containsExactly(1, 2, 3);
        assertThat(param).isEqualTo(ConnParam.of(new byte[] {1, 2, 3})).isNotEqualTo(ConnParam.of(new byte[] {1, 2}));
        assertThat(ConnParam.defaults()).isEqualTo(new ConnParam(null, 1, 1, 0, 7, 7, false, 0));
    }

    @Test
    void udParamCarriesRdmaCmsUdpQkey() {
        UdParam param = new UdParam(null, AhAttr.of(Gid.parse("::ffff:10.0.0.2"), 1, 1), 0x11, UdParam.RDMA_UDP_QKEY);
        assertThat(param.qkey()).isEqualTo(0x01234567);
        assertThat(param.privateData()).isEmpty();
    }

    @Test
    void socketErrnosHaveLinuxNumbers() {
        assertThat(Errno.EADDRINUSE.number()).isEqualTo(98);
        assertThat(Errno.EADDRNOTAVAIL.number()).isEqualTo(99);
        assertThat(Errno.ECONNREFUSED.number()).isEqualTo(111);
        assertThat(Errno.EHOSTUNREACH.number()).isEqualTo(113);
        assertThat(Errno.ENETUNREACH.number()).isEqualTo(101);
        assertThat(Errno.of(113)).isEqualTo(Errno.EHOSTUNREACH);
    }
}
