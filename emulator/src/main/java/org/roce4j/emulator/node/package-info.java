/**
 * One emulated RNIC on a network ({@code rxe.c}, {@code rxe_net.c}): the node that owns the verbs
 * objects, runs the transport engines in its duty cycle, and sends and receives frames through a
 * fabric port or an external link; its GID table, its neighbours (MAC by IP) and the network path
 * (addresses, traffic class, hop limit) a QP or AH sends on. Internal to the emulator: not API.
 */
package org.roce4j.emulator.node;
