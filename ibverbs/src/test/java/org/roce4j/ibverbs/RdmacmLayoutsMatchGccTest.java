package org.roce4j.ibverbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every hand-written layout of {@link RdmacmLayouts} (rdma_cm_id, rdma_cm_event, rdma_conn_param,
 * rdma_ud_param, rdma_event_channel, the socket addresses, …) against gcc on the installed
 * {@code <rdma/rdma_cma.h>} (Debian: librdmacm-dev): see {@link GccLayoutCheck}.
 */
class RdmacmLayoutsMatchGccTest {
    static final GccLayoutCheck RDMA_CMA = new GccLayoutCheck(List.of("rdma/rdma_cma.h"), "librdmacm-dev");

    @Test
    void everyFieldOffsetAndEveryStructSizeIsWhatGccComputes(@TempDir Path dir) throws Exception {
        int compared = RDMA_CMA.assertMatches(RdmacmLayouts.CHECKED, dir);
        assertThat(compared).as("checked entries").isGreaterThan(100);
    }
}
