package org.roce4j.ibverbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemoryLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every hand-written layout of {@link Layouts} against gcc on the installed
 * {@code <infiniband/verbs.h>} (Debian: libibverbs-dev) and {@code <poll.h>}: see {@link GccLayoutCheck}.
 */
class LayoutsMatchGccTest {

    @Test
    void everyFieldOffsetAndEveryStructSizeIsWhatGccComputes(@TempDir Path dir) throws Exception {
        List<MemoryLayout> layouts = new ArrayList<>(Layouts.CHECKED);
        layouts.add(Layouts.POLLFD);
        layouts.addAll(ExtendedLayouts.CHECKED);
        int compared = new GccLayoutCheck(List.of("poll.h", "infiniband/verbs.h"), "libibverbs-dev")
                .assertMatches(layouts, dir);
        assertThat(compared).as("checked entries").isGreaterThan(300);
    }
}
