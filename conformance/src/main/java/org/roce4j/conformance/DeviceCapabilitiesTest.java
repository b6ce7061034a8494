package org.roce4j.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.DeviceAttr;
import org.roce4j.verbs.DeviceCapFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.Srq;
import org.roce4j.verbs.SrqAttr;
import org.roce4j.verbs.SrqAttrMask;
import org.roce4j.verbs.SrqInitAttr;

/** What a device says it has ({@code device_cap_flags}, {@code num_comp_vectors}) and what it then accepts. */
@ExtendWith(Backend.Resolver.class)
class DeviceCapabilitiesTest {
    private final Backend backend;

    DeviceCapabilitiesTest(Backend backend) {
        this.backend = backend;
    }

    @Test
    @DisplayName("uverbs create_cq: comp_vector 0 .. num_comp_vectors - 1 is accepted; num_comp_vectors and -1 are EINVAL")
    void compVectorIsCheckedAgainstNumCompVectors() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            int vectors = e.context.numCompVectors();
            assertThat(vectors).as("num_comp_vectors").isPositive();
            for (int vector = 0; vector < vectors; vector++) {
                int v = vector;
                Expect.succeeds("ibv_create_cq with comp_vector " + vector, () -> e.track(e.context.createCq(4, null, v)));
            }
            Expect.errno("ibv_create_cq with comp_vector num_comp_vectors", Errno.EINVAL,
                    () -> e.track(e.context.createCq(4, null, vectors)));
            Expect.errno("ibv_create_cq with comp_vector -1", Errno.EINVAL,
                    () -> e.track(e.context.createCq(4, null, -1)));
        }
    }

    @Test
    @DisplayName("IBV_DEVICE_SRQ_RESIZE and IBV_DEVICE_SYS_IMAGE_GUID: a device that claims them resizes an SRQ and reports a system image GUID")
    void claimedCapabilitiesWork() throws Exception {
        try (Endpoint e = Endpoint.first(backend)) {
            DeviceAttr attr = e.context.queryDevice();
            assertThat(attr.deviceCapFlags()).as("device_cap_flags")
                    .contains(DeviceCapFlag.SRQ_RESIZE, DeviceCapFlag.SYS_IMAGE_GUID);
            assertThat(attr.sysImageGuid()).as("sys_image_guid").isNotZero();
            Srq srq = e.track(e.pd.createSrq(new SrqInitAttr(4, 1, 0)));
            Expect.succeeds("ibv_modify_srq IBV_SRQ_MAX_WR on a device with SRQ_RESIZE",
                    () -> srq.modify(new SrqAttr(64, 1, 0), EnumSet.of(SrqAttrMask.MAX_WR)));
            assertThat(srq.query().maxWr()).isGreaterThanOrEqualTo(64);
        }
    }
}
