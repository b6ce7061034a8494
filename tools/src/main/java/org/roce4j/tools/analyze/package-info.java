/**
 * {@code roce4j analyze}: reads a capture once, front to back, and tells per connection what the
 * RoCEv2 transport did: messages, request-to-acknowledgement latency, goodput, PSN gaps, NAKs,
 * retransmissions by cause, duplicates and how they were answered, and the protocol rules it saw
 * broken ({@link org.roce4j.tools.analyze.ViolationKind}). {@link org.roce4j.tools.analyze.CaptureAnalysis}
 * is the entry point; memory grows with the live connections and outstanding messages, never with
 * the length of the file. docs/analyze.md says what every number means.
 */
package org.roce4j.tools.analyze;
