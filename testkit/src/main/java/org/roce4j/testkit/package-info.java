/**
 * roce4j's testkit: unit tests of RDMA code on an emulated RoCEv2 fabric, with JUnit 5 and AssertJ.
 *
 * <p>One test dependency ({@code org.roce4j:roce4j-testkit}), one annotation:
 *
 * <pre>{@code
 * @EmulatedFabric(nodes = 2, drop = 0.1)
 * class MyTest {
 *     @Test
 *     void writeLands(Context a, Context b) {
 *         QpPair pair = QpPair.rc(a, b);
 *         pair.a().qp().postSend(SendWr.rdmaWrite(1, pair.a().mr(), 0, 64, pair.a().peerAddress(), pair.a().peerRkey()));
 *         assertThat(pair.a().cq()).hasCompletions(WcStatus.SUCCESS);
 *     }
 * }
 * }</pre>
 *
 * <ul>
 *   <li>{@link org.roce4j.testkit.EmulatedFabric}: the fabric a test gets (nodes, MTU, link, seed,
 *       faults, profile), its parameters, leak checks and the failure report;</li>
 *   <li>{@link org.roce4j.testkit.QpPair}: two connected QPs in one line, also through rdma_cm
 *       ({@link org.roce4j.testkit.QpPair#rcThroughCm});</li>
 *   <li>{@link org.roce4j.testkit.RdmaNode#connectionManager()}: rdma_cm on a node (one host per node);
 *       its events appear in the failure report;</li>
 *   <li>{@link org.roce4j.testkit.RoceAssertions}: {@code assertThat} for completions, CQs, QPs and memory;</li>
 *   <li>{@link org.roce4j.testkit.Completions}: polling a CQ for what a test waits for.</li>
 * </ul>
 */
package org.roce4j.testkit;
