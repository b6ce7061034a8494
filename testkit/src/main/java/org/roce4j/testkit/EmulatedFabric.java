package org.roce4j.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;
import org.roce4j.emulator.DeviceProfile;

/**
 * Gives each test its own emulated RoCEv2 fabric: {@code nodes} emulated RNICs ({@code rxe0},
 * {@code rxe1}, …), handed to the test method as parameters — {@link org.roce4j.verbs.Context}
 * (opened for the test), {@link org.roce4j.verbs.Device}, {@link RdmaNode} or the whole
 * {@link TestFabric} — and closed after it.
 *
 * <pre>{@code
 * @EmulatedFabric(nodes = 2, mtu = 4096, drop = 0.1)
 * class MyRdmaTest {
 *     @Test
 *     void writeArrives(Context a, Context b) { ... }
 * }
 * }</pre>
 *
 * <p>Put it on a class (every test) or a method (that test; the method's annotation wins). After each
 * test the extension reports as failures the verbs objects the test left open (QPs, MRs, CQs, PDs,
 * …) and completion events it got and did not acknowledge. When a test fails it writes the test's
 * capture to {@code target/roce4j-pcaps/<class>/<test>.pcap}, prints the seed that replays the
 * run ({@code -Droce4j.seed=N}) and the last frames to and from each QP as {@code roce4j decode}
 * prints them.
 *
 * <p>System properties override the annotation, for replaying and for CI: {@code roce4j.seed},
 * {@code roce4j.testkit.link} ({@code deterministic}, {@code threaded}, {@code udp-loopback}),
 * {@code roce4j.testkit.pcap} ({@code on-failure}, {@code always}), {@code roce4j.testkit.pcapDir}.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(RoceExtension.class)
public @interface EmulatedFabric {
    /** The value of {@link #seed()} that asks for a fresh random seed per test (printed on failure). */
    long RANDOM_SEED = Long.MIN_VALUE;

    /** {@return how many emulated RNICs: {@code rxe0} at 10.0.0.1, {@code rxe1} at 10.0.0.2, …} */
    int nodes() default 2;

    /**
     * {@return the ports' active MTU in bytes (256, 512, 1024, 2048 or 4096)}: the largest path MTU,
     * what UD uses, and what {@link QpPair} connects RC and UC QPs with. Soft-RoCE on 1500-byte
     * Ethernet has 1024.
     */
    int mtu() default 1024;

    /** {@return how frames travel between the nodes} */
    Link link() default Link.DETERMINISTIC;

    /**
     * {@return the seed of everything random in the test's fabric}: the fault plan and the first PSNs
     * {@link QpPair} picks ({@link TestFabric#random()} for the test's own choices).
     * {@link #RANDOM_SEED} (the default) draws one per test; {@code -Droce4j.seed=N} overrides both.
     */
    long seed() default RANDOM_SEED;

    /** {@return the probability that any frame, either way, is dropped} */
    double drop() default 0;

    /** {@return the probability that any frame is delivered twice} */
    double duplicate() default 0;

    /** {@return the probability that one byte of any frame is corrupted (the receiver's ICRC check drops it)} */
    double corrupt() default 0;

    /** {@return the probability that any frame is held back up to {@link #reorderWindowNanos()}, so later frames overtake it} */
    double reorder() default 0;

    /** {@return how long a reordered frame may be held back, in nanoseconds of fabric time} */
    long reorderWindowNanos() default 8_000;

    /**
     * {@return a scripted fault schedule, added to the probabilities above}: a class with a public
     * no-argument constructor, e.g. one that drops the 3rd ACK.
     */
    Class<? extends FaultSchedule> faults() default FaultSchedule.None.class;

    /** {@return whose behaviour the RNICs follow where IBTA and Linux Soft-RoCE differ} */
    DeviceProfile profile() default DeviceProfile.LINUX;

    /** {@return when the test's capture is kept in {@code target/roce4j-pcaps}} */
    Capture capture() default Capture.ON_FAILURE;

    /** {@return how many of the last frames of each QP a failure report prints} */
    int lastFrames() default 8;
}
