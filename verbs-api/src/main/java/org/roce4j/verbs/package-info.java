/**
 * The Verbs API: libibverbs' object model (device, context, protection domain, memory region,
 * completion queue and channel, queue pair, shared receive queue, address handle) with ibv names,
 * in idiomatic Java. Invalid calls throw {@link org.roce4j.verbs.VerbsException} with the errno
 * libibverbs gives; transport outcomes arrive as {@link org.roce4j.verbs.WorkCompletion}s.
 *
 * <p>Arguments C cannot pass follow Java's conventions: a null reference where an object is needed
 * is a {@link java.lang.NullPointerException} whose message is the parameter's name (as
 * {@code Objects.requireNonNull(x, "x")} gives), and a negative count or size is a
 * {@code VerbsException} EINVAL, as libibverbs refuses a count it cannot use. An SGE's length is
 * the exception: it is libibverbs' unsigned 32-bit {@code length}, so a negative {@code int} there
 * means 2 to 4 GiB and is checked against the device's limits at post.
 */
package org.roce4j.verbs;
