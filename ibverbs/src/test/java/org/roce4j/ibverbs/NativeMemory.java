package org.roce4j.ibverbs;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import javax.management.JMException;
import javax.management.ObjectName;

/**
 * What the process has malloc'ed, and how much of it is the JVM's own: glibc's {@code mallinfo2()} (bytes
 * in use, every malloc of the process: libibverbs', the provider's, the JDK's native libraries' and the
 * JVM's) beside HotSpot's Native Memory Tracking summary (the JVM's own {@code os::malloc} by category, its
 * compilers' arenas among them). NMT counts FFM arenas and {@code Unsafe.allocateMemory} as "Other".
 * Needs {@code -XX:NativeMemoryTracking=summary}.
 *
 * @param mallocInUse bytes malloc has handed out ({@link #inUse()})
 * @param jvmMalloc   what the JVM's blocks take of that: NMT's total malloc (its arenas' chunks and NMT's
 *                    own header and footer of 18 bytes a block included) and glibc's header and rounding of
 *                    each block, {@value #CHUNK_OVERHEAD} bytes a block (14 or 22 for the JVM's sizes, which
 *                    are multiples of 8)
 * @param categories  NMT's malloc by category ("Compiler", "Arena Chunk", "Other", ...), and what the arenas
 *                    of a category use as "Name arena" ("Compiler arena": the JIT's)
 */
@SuppressWarnings("restricted")   // mallinfo2 through FFM
record NativeMemory(long mallocInUse, long jvmMalloc, Map<String, Long> categories) {
    /** How far malloc's bytes in use may move while NMT takes its summary for the two to count as one moment. */
    private static final long STEADY = 64 << 10;
    /** glibc's share of a block of the JVM's, on average: its 8-byte size field and rounding to 16. */
    static final long CHUNK_OVERHEAD = 18;
    private static final Pattern CATEGORY = Pattern.compile("^-\\s+(.+?) \\(reserved=");
    private static final Pattern CATEGORY_MALLOC = Pattern.compile("\\(malloc=(\\d+)");
    private static final Pattern CATEGORY_ARENA = Pattern.compile("\\(arena=(\\d+)");
    private static final Pattern TOTAL_MALLOC = Pattern.compile("^\\s+malloc: (\\d+) #(\\d+)");

    /** The JVM's native memory tracking summary in bytes, or {@code null} when NMT is off. */
    static String nmtSummary() {
        try {
            String summary = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary", "scale=b"}}, new String[] {String[].class.getName()});
            return summary.contains("Native memory tracking is not enabled") ? null : summary;
        } catch (JMException e) {
            throw new IllegalStateException("the DiagnosticCommand MBean's vmNativeMemory", e);
        }
    }

    /**
     * Malloc's bytes in use and NMT's summary at one moment: the JIT's threads malloc and free megabytes while
     * they compile, so the two are read again (up to 10 times) until the bytes in use, read before and after the
     * summary, moved by less than {@value #STEADY} bytes (they moved by at most 33 KB in the device tests).
     */
    static NativeMemory snapshot() {
        for (int attempt = 1; ; attempt++) {
            long before = inUse();
            String summary = nmtSummary();
            long after = inUse();
            if (summary == null) {
                throw new IllegalStateException("Native Memory Tracking is off");
            }
            if (Math.abs(after - before) < STEADY || attempt == 10) {
                return parse(before, summary);
            }
        }
    }

    private static NativeMemory parse(long mallocInUse, String summary) {
        Map<String, Long> categories = new LinkedHashMap<>();
        long total = -1;
        long blocks = -1;
        String category = null;
        for (String line : summary.split("\n")) {
            Matcher m = CATEGORY.matcher(line);
            if (m.find()) {
                category = m.group(1).trim();
                continue;
            }
            if (category == null && (m = TOTAL_MALLOC.matcher(line)).find()) {
                total = Long.parseLong(m.group(1));
                blocks = Long.parseLong(m.group(2));
            }
            if (category != null && (m = CATEGORY_MALLOC.matcher(line)).find()) {
                categories.put(category, Long.parseLong(m.group(1)));
            }
            if (category != null && (m = CATEGORY_ARENA.matcher(line)).find()) {
                categories.put(category + " arena", Long.parseLong(m.group(1)));
            }
        }
        if (total < 0 || !categories.containsKey("Other")) {
            throw new IllegalStateException("no total malloc or no Other in NMT's summary:\n" + summary);
        }
        return new NativeMemory(mallocInUse, total + CHUNK_OVERHEAD * blocks, categories);
    }

    /** Bytes in use by malloc that the JVM did not allocate: libibverbs', the provider's, the JDK's libraries'. */
    long outsideJvm() {
        return mallocInUse - jvmMalloc;
    }

    /** NMT's "Other": FFM arenas, {@code Unsafe.allocateMemory}, direct buffers. */
    long other() {
        return categories.get("Other");
    }

    /** The {@code n} categories of the JVM's malloc that moved most since {@code before}, as "Name +bytes". */
    String largestChanges(NativeMemory before, int n) {
        TreeSet<String> names = new TreeSet<>(categories.keySet());
        names.addAll(before.categories.keySet());
        return names.stream()
                .map(name -> Map.entry(name, categories.getOrDefault(name, 0L) - before.categories.getOrDefault(name, 0L)))
                .filter(e -> e.getValue() != 0)
                .sorted(Comparator.comparingLong((Map.Entry<String, Long> e) -> -Math.abs(e.getValue())))
                .limit(n)
                .map(e -> String.format("%s %+d", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
    }

    private static final MethodHandle MALLINFO2;
    static {
        Linker linker = Linker.nativeLinker();
        MemoryLayout mallinfo2 = MemoryLayout.structLayout(JAVA_LONG.withName("arena"), JAVA_LONG.withName("ordblks"),
                JAVA_LONG.withName("smblks"), JAVA_LONG.withName("hblks"), JAVA_LONG.withName("hblkhd"),
                JAVA_LONG.withName("usmblks"), JAVA_LONG.withName("fsmblks"), JAVA_LONG.withName("uordblks"),
                JAVA_LONG.withName("fordblks"), JAVA_LONG.withName("keepcost"));   // ten size_t fields
        MALLINFO2 = linker.downcallHandle(linker.defaultLookup().findOrThrow("mallinfo2"), FunctionDescriptor.of(mallinfo2));
    }

    /**
     * glibc's {@code mallinfo2()}: bytes malloc has handed out, from its arenas ({@code uordblks}) and mmap'ed
     * block by block ({@code hblkhd}: blocks over the mmap threshold, which NMT counts when they are the JVM's).
     */
    static long inUse() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment result = (MemorySegment) MALLINFO2.invokeExact((SegmentAllocator) arena);
            // arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, ...
            return result.getAtIndex(JAVA_LONG, 7) + result.getAtIndex(JAVA_LONG, 4);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
