/**
 * The RDMA Connection Manager, shaped after librdmacm ({@code rdma/rdma_cma.h}): event channels,
 * CM ids, address and route resolution, connect / listen / accept / reject / disconnect with the
 * QP moved through its states by the CM, and events with librdmacm's names, values and statuses.
 *
 * <p>An active side, as rping's client does it:
 * <pre>{@code
 * try (EventChannel channel = RdmaCm.createEventChannel()) {
 *     CmId id = channel.createId(PortSpace.TCP);
 *     id.resolveAddr(null, new InetSocketAddress(server, 7174), Duration.ofSeconds(2));  // → ADDR_RESOLVED
 *     id.resolveRoute(Duration.ofSeconds(2));                                             // → ROUTE_RESOLVED
 *     Pd pd = id.verbs().orElseThrow().allocPd();
 *     Cq cq = id.verbs().orElseThrow().createCq(16);
 *     Qp qp = id.createQp(pd, QpInitAttr.of(QpType.RC, cq, QpCap.of(16, 16)));
 *     id.connect(ConnParam.of("hello".getBytes()));                                      // → ESTABLISHED
 *     ...
 *     id.disconnect();                                                                    // → DISCONNECTED
 *     id.destroyQp();
 *     id.close();
 * }
 * }</pre>
 *
 * <p>The backends: the emulated RNIC speaks IBTA Vol. 1 chapter 12 connection management as Linux's
 * {@code ib_cm} and {@code rdma_cm} do (CM MADs to QP 1 as RoCEv2 UD packets); the ibverbs backend
 * calls librdmacm.
 */
package org.roce4j.cm;
