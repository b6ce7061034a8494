/**
 * The Verbs API: libibverbs' object model (device, context, protection domain, memory region,
 * completion queue and channel, queue pair, shared receive queue, address handle) with ibv names,
 * in idiomatic Java. Invalid calls throw {@link org.roce4j.verbs.VerbsException} with the errno
 * libibverbs gives; transport outcomes arrive as {@link org.roce4j.verbs.WorkCompletion}s.
 */
package org.roce4j.verbs;
