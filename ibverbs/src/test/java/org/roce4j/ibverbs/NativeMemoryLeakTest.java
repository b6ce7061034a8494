package org.roce4j.ibverbs;


import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpCap;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpType;

/**
 * Creating and closing 10,000 QPs and 10,000 MRs leaks nothing: the kernel's count of QPs and MRs
 * ({@code rdma resource show}) and the mappings of the uverbs device (a QP's queues are mmap'ed from
 * it) are back exactly where they were, and the bytes malloc has handed out ({@code mallinfo2().uordblks}:
 * libibverbs', the provider's and the JVM's own native allocations, our per-QP arenas of about 1.5 KB
 * included) grew by less than 1 MiB in at least one of two halves of 5,000: a leak of 210 bytes or
 * more per QP and MR would grow both.
 */
@Tag("device")
@SuppressWarnings("restricted")   // this is the module that calls native code (FFM)
class NativeMemoryLeakTest {
    private static final int ROUNDS = Integer.getInteger("roce4j.leak.rounds", 10_000);
    private static final long ALLOWANCE = 1L << 20;

    @Test
    void tenThousandQpsAndMrsCreatedAndClosedLeakNothing() throws IOException {
        try (Context context = RxeSmokeTest.device().open(); Pd pd = context.allocPd(); Cq cq = context.createCq(16);
             Arena arena = Arena.ofShared()) {
            MemorySegment memory = arena.allocate(4096, 4096);
            cycle(pd, cq, memory, 200);   // warm-up: the JIT, malloc's arenas, libibverbs' caches
            kernelObjects();              // and the JVM's process machinery (a reaper thread, its arena)
            String kernelBefore = kernelObjects();
            long mappingsBefore = uverbsMappings();
            long start = System.nanoTime();
            // Two halves: a leak grows both by the same amount, the JVM's own one-off noise (its compiler
            // threads' malloc arenas: up to 0.85 MB seen in one run) lands in one of them.
            long[] grown = new long[2];
            for (int half = 0; half < 2; half++) {
                long before = mallocInUse();
                cycle(pd, cq, memory, ROUNDS / 2);
                grown[half] = mallocInUse() - before;
            }
            System.out.printf("%d QPs and MRs in %.1f s: malloc'ed bytes grew by %d and %d in the two halves, "
                    + "uverbs mappings %d -> %d, kernel %s -> %s%n", ROUNDS, (System.nanoTime() - start) / 1e9,
                    grown[0], grown[1], mappingsBefore, uverbsMappings(), kernelBefore, kernelObjects());
            assertThat(kernelObjects()).as("QPs and MRs the kernel holds for " + DEVICE).isEqualTo(kernelBefore);
            assertThat(uverbsMappings()).as("mappings of /dev/infiniband/uverbs*").isEqualTo(mappingsBefore);
            assertThat(Math.min(grown[0], grown[1]))
                    .as("bytes malloc handed out in the better half of %d QPs and %d MRs", ROUNDS, ROUNDS)
                    .isLessThan(ALLOWANCE);
        }
    }

    private static void cycle(Pd pd, Cq cq, MemorySegment memory, int rounds) {
        for (int i = 0; i < rounds; i++) {
            Qp qp = pd.createQp(QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 16)));
            Mr mr = pd.regMr(memory, RxeSmokeTest.ALL);
            qp.close();
            mr.close();
        }
    }

    /** glibc's {@code mallinfo2().uordblks}: bytes in use by malloc (main arena and the others). */
    private static long mallocInUse() {
        Linker linker = Linker.nativeLinker();
        MemoryLayout mallinfo2 = MemoryLayout.structLayout(JAVA_LONG.withName("arena"), JAVA_LONG.withName("ordblks"),
                JAVA_LONG.withName("smblks"), JAVA_LONG.withName("hblks"), JAVA_LONG.withName("hblkhd"),
                JAVA_LONG.withName("usmblks"), JAVA_LONG.withName("fsmblks"), JAVA_LONG.withName("uordblks"),
                JAVA_LONG.withName("fordblks"), JAVA_LONG.withName("keepcost"));   // ten size_t fields
        MethodHandle call = linker.downcallHandle(linker.defaultLookup().findOrThrow("mallinfo2"),
                FunctionDescriptor.of(mallinfo2));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment result = (MemorySegment) call.invokeExact((java.lang.foreign.SegmentAllocator) arena);
            return result.getAtIndex(JAVA_LONG, 7);   // arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static final String DEVICE = System.getProperty("roce4j.ibverbs.device", "rxe0");

    /** "qp N mr M" of the device, from {@code rdma resource show} (iproute2). */
    private static String kernelObjects() throws IOException {
        Process rdma = new ProcessBuilder("rdma", "resource", "show").redirectErrorStream(true).start();
        String out = new String(rdma.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        for (String line : out.split("\n")) {
            if (line.contains(DEVICE + ":")) {
                java.util.regex.Matcher qp = java.util.regex.Pattern.compile("\\bqp (\\d+)").matcher(line);
                java.util.regex.Matcher mr = java.util.regex.Pattern.compile("\\bmr (\\d+)").matcher(line);
                if (qp.find() && mr.find()) {
                    return "qp " + qp.group(1) + " mr " + mr.group(1);
                }
            }
        }
        throw new AssertionError("no qp/mr counts for " + DEVICE + " in `rdma resource show`: " + out);
    }

    private static long uverbsMappings() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains("uverbs")).count();
    }

}
