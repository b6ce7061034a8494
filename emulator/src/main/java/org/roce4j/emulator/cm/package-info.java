/**
 * The connection manager of the emulated RNIC, read the way Linux's {@code drivers/infiniband/core}
 * is: {@code GsiAgent} is QP 1 (CM MADs as UD SEND Only, P_Key 0xFFFF, Q_Key 0x80010000, as rxe
 * sends them); {@code CommunicationManager} and {@code CmConnection} are {@code ib_cm}
 * ({@code cm.c}: REQ, MRA, REJ, REP, RTU, DREQ, DREP, comm IDs, duplicates, timewait, the MAD
 * retries and timeouts {@code cm_convert_to_ms} gives, all on the node's clock as one fabric agent);
 * {@code RdmaCmHost}, {@code EmulatedCmId} and {@code EmulatedEventChannel} are {@code rdma_cm}
 * ({@code cma.c} and librdmacm's checks) implementing verbs-api's {@code org.roce4j.cm}: address
 * and route resolution over the host's devices, port bindings per port space, listen with a
 * backlog, the service ID and rdma_cm's IP header in the REQ, and the QP moved INIT → RTR → RTS
 * through its normal modify path with what the REQ and REP negotiated.
 *
 * <p>{@code Sidr} is the UD service ID resolution (IBTA 12.11) the UDP port space connects with.
 */
package org.roce4j.emulator.cm;
