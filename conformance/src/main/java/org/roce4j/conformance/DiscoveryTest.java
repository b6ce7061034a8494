package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Gid;
import org.roce4j.verbs.PortAttr;
import org.roce4j.verbs.Verbs;

/** ibv_get_device_list, ibv_open_device, ibv_query_device/port/gid as rdma-core and a RoCE port report them. */
@ExtendWith(Backend.Resolver.class)
class DiscoveryTest {
    private final Backend backend;

    DiscoveryTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("roce4j.provider selects the backend; its devices name it as their provider")
    void providerIsTheOneSelected() {
        String wanted = System.getProperty(Verbs.PROVIDER_PROPERTY);
        var provider = backend.provider();
        if (wanted != null && !wanted.isBlank()) {
            assertThat(provider.name()).isEqualTo(wanted);
        }
        List<Device> devices = provider.devices();
        assertThat(devices).as("ibv_get_device_list").isNotEmpty();
        for (Device device : devices) {
            assertThat(device.providerName()).isEqualTo(provider.name());
            assertThat(device.name()).isNotBlank();
        }
        assertThat(devices.stream().map(Device::name).distinct().count()).as("device names are unique")
                .isEqualTo(devices.size());
    }

    @Test
    @DisplayName("ibv_query_device: node GUID is ibv_get_device_guid, limits allow at least one of everything")
    void queryDevice() {
        Device device = backend.firstDevice();
        try (Context context = device.open()) {
            DeviceAttr attr = context.queryDevice();
            assertThat(attr.nodeGuid()).isEqualTo(device.guid());
            assertThat(attr.physPortCnt()).isGreaterThanOrEqualTo(1);
            assertThat(attr.maxQp()).isPositive();
            assertThat(attr.maxQpWr()).isPositive();
            assertThat(attr.maxSge()).isPositive();
            assertThat(attr.maxCq()).isPositive();
            assertThat(attr.maxCqe()).isPositive();
            assertThat(attr.maxMr()).isPositive();
            assertThat(attr.maxPd()).isPositive();
            // max_mr_size is a uint64_t: rxe reports ~0ULL, which is -1 as a Java long.
            assertThat(Long.compareUnsigned(attr.maxMrSize(), 0)).isPositive();
            assertThat(attr.maxSrq()).isPositive();
            assertThat(attr.maxSrqWr()).isPositive();
            assertThat(attr.maxAh()).isPositive();
            assertThat(attr.maxQpRdAtom()).isPositive();
            assertThat(attr.maxQpInitRdAtom()).isPositive();
            assertThat(attr.atomicCap()).as("RC atomics are supported (rxe: IB_ATOMIC_HCA)")
                    .isNotEqualTo(DeviceAttr.AtomicCapability.NONE);
        }
    }

    @Test
    @DisplayName("ibv_query_port: a RoCE port is ACTIVE, link layer ETHERNET, active MTU <= max MTU, LID 0")
    void queryPort() {
        try (Context context = backend.firstDevice().open()) {
            PortAttr port = context.queryPort(Endpoint.PORT);
            assertThat(port.state()).isEqualTo(PortAttr.PortState.ACTIVE);
            assertThat(port.linkLayer()).isEqualTo(PortAttr.LinkLayer.ETHERNET);
            assertThat(port.activeMtu().bytes()).isLessThanOrEqualTo(port.maxMtu().bytes());
            assertThat(port.gidTblLen()).as("GID 0 (link-local) and 1 (IPv4-mapped)").isGreaterThanOrEqualTo(2);
            assertThat(port.maxMsgSz()).isPositive();
            assertThat(port.lid()).as("RoCE has no LIDs").isZero();
        }
    }

    @Test
    @DisplayName("ibv_query_port: port 0 and ports past phys_port_cnt are EINVAL (ports number from 1)")
    void queryPortOutOfRange() {
        try (Context context = backend.firstDevice().open()) {
            int ports = context.queryDevice().physPortCnt();
            Expect.errno(Errno.EINVAL, () -> context.queryPort(0));
            Expect.errno(Errno.EINVAL, () -> context.queryPort(ports + 1));
        }
    }

    @Test
    @DisplayName("ibv_query_gid: RoCEv2 over IPv4 uses an IPv4-mapped GID (::ffff:a.b.c.d)")
    void queryGid() {
        try (Context context = backend.firstDevice().open()) {
            Gid gid = context.queryGid(Endpoint.PORT, Endpoint.GID_INDEX);
            assertThat(gid.isIpv4Mapped()).as("GID %s", gid).isTrue();
            assertThat(gid).isNotEqualTo(Gid.ZERO);
        }
    }

    @Test
    @DisplayName("ibv_query_gid: an index past gid_tbl_len and a bad port are EINVAL")
    void queryGidOutOfRange() {
        try (Context context = backend.firstDevice().open()) {
            int length = context.queryPort(Endpoint.PORT).gidTblLen();
            Expect.errno(Errno.EINVAL, () -> context.queryGid(Endpoint.PORT, length));
            Expect.errno(Errno.EINVAL, () -> context.queryGid(Endpoint.PORT, -1));
            Expect.errno(Errno.EINVAL, () -> context.queryGid(0, Endpoint.GID_INDEX));
        }
    }

    @Test
    @DisplayName("ibv_create_cq: cqe < 1 or > max_cqe is EINVAL; a CQ holds at least what was asked")
    void createCqLimits() {
        try (Context context = backend.firstDevice().open()) {
            int maxCqe = context.queryDevice().maxCqe();
            Expect.errno(Errno.EINVAL, () -> context.createCq(0));
            Expect.errno(Errno.EINVAL, () -> context.createCq(maxCqe + 1));
            try (var cq = context.createCq(10)) {
                assertThat(cq.capacity()).isGreaterThanOrEqualTo(10);
                assertThat(cq.context()).isSameAs(context);
                assertThat(cq.channel()).isNull();
                assertThat(cq.poll()).as("a new CQ is empty").isEmpty();
            }
        }
    }

    @Test
    @DisplayName("two contexts on one device are independent (ibv_open_device twice)")
    void twoContexts() {
        Device device = backend.firstDevice();
        try (Context first = device.open(); Context second = device.open()) {
            assertThat(first).isNotSameAs(second);
            assertThat(first.device().name()).isEqualTo(second.device().name());
            assertThat(first.queryGid(Endpoint.PORT, Endpoint.GID_INDEX))
                    .isEqualTo(second.queryGid(Endpoint.PORT, Endpoint.GID_INDEX));
        }
    }
}
