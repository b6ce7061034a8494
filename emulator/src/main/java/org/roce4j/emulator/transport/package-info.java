/**
 * The transport engines of the emulated RNIC, one per rxe task: the requester turns send WQEs into
 * request packets ({@code rxe_req.c}), the completer matches ACKs, NAKs and READ responses to them
 * and retires WQEs into completions ({@code rxe_comp.c}), the responder executes requests against
 * receive WQEs and memory and answers them ({@code rxe_resp.c}). Beside them: the send window the
 * requester and completer share (rxe's {@code req.psn} and {@code comp.psn}), the send and receive
 * queues, the READ/atomic responder resources, the paced READ replies, the answers to duplicate
 * requests and the response packets. Frames are laid out by wire's {@code PacketWriter}, which the
 * node starts for a path ({@code Rnic.beginFrame}); the opcode of each packet comes from wire's
 * table. Internal to the emulator: not API.
 */
package org.roce4j.emulator.transport;
