/**
 * roce4j's software RoCEv2 RNIC. This package is the emulator's public face: {@link
 * org.roce4j.emulator.SoftRnic} (a device on the in-process fabric), {@link
 * org.roce4j.emulator.EmulatorProvider} (the Verbs backend, {@code -Droce4j.provider=emulator}),
 * {@link org.roce4j.emulator.RnicCounter}, {@link org.roce4j.emulator.DeviceProfile} (the modelled
 * devices: each a {@link org.roce4j.emulator.DeviceModel} of limits and departures from the default)
 * and the hooks an external link attaches to.
 *
 * <p>The rooms below it are read the way Linux's rxe is read ({@code drivers/infiniband/sw/rxe}):
 * <ul>
 *   <li>{@code verbs} — the verbs objects: context, device, PD, MR and the key tables, CQ and
 *       completion channel, QP, SRQ, AH; the checks a verb makes before anything reaches the wire
 *       ({@code rxe_verbs.c}, {@code rxe_qp.c}, {@code rxe_mr.c}, {@code rxe_pool.c}).</li>
 *   <li>{@code transport} — the engines that move a work request over the wire: requester
 *       ({@code rxe_req.c}), completer ({@code rxe_comp.c}), responder ({@code rxe_resp.c}), their
 *       send and receive queues, READ replies and the frames they write.</li>
 *   <li>{@code node} — one RNIC on a network: the node that owns the objects and drives the engines
 *       ({@code rxe.c}, {@code rxe_net.c}), its GID table, neighbours and network paths.</li>
 *   <li>{@code fabric} — the in-process Ethernet: switch, virtual or system clock, seeded faults,
 *       the pcap tap.</li>
 *   <li>{@code udp} — RoCEv2 on real UDP port 4791 through Netty, to other JVMs, Linux Soft-RoCE
 *       and RNICs.</li>
 * </ul>
 * Only this package is API; the rooms' public types are public so that the rooms can talk to each
 * other, and may change in any release.
 */
package org.roce4j.emulator;
