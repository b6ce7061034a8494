/**
 * Management datagrams of the connection manager (IBTA Vol. 1 ch. 12 and §13.4) as Linux's
 * {@code ib_cm} and {@code rdma_cm} put them on the wire: the 256-byte payload of a UD SEND from
 * QP 1 to QP 1.
 *
 * <ul>
 *   <li>{@link org.roce4j.wire.mad.MadHeader}: the common 24-byte header and the GSI constants.
 *   <li>{@link org.roce4j.wire.mad.CmMessage}: one record per message (REQ, MRA, REJ, REP, RTU,
 *       DREQ, DREP, SIDR_REQ, SIDR_REP), each with its IBTA field table.
 *   <li>{@link org.roce4j.wire.mad.CmMad}: header and message together; decoding gives a
 *       {@link org.roce4j.wire.mad.DecodedCmMad}, never an exception.
 *   <li>{@link org.roce4j.wire.mad.CmaHeader} and {@link org.roce4j.wire.mad.ServiceId}: what
 *       rdma_cm adds (its IP header in the private data, its service IDs).
 * </ul>
 *
 * Like the rest of wire, nothing here knows QPs or verbs: these are bytes and their meaning.
 */
package org.roce4j.wire.mad;
