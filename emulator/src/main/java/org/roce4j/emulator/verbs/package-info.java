/**
 * The verbs objects of the emulated RNIC, as rxe keeps them ({@code rxe_verbs.c}, {@code rxe_qp.c},
 * {@code rxe_mr.c}, {@code rxe_cq.c}, {@code rxe_srq.c}, {@code rxe_av.c}): context and device,
 * protection domains, memory regions with their key tables and key sources, completion queues and
 * channels, queue pairs with their state machine, shared receive queues and address handles. A verb
 * is checked here (errno as libibverbs returns it) before its work reaches the {@code transport}
 * engines. Internal to the emulator: not API.
 */
package org.roce4j.emulator.verbs;
