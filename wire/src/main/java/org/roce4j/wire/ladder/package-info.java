/**
 * A capture as a ladder diagram: one lifeline per queue pair (an address and a QPN), one arrow per
 * RoCEv2 frame, time going down. {@link org.roce4j.wire.ladder.CaptureLadder} reads the frames,
 * {@link org.roce4j.wire.ladder.QpPeers} finds which QP sent each one (an RC BTH names only the
 * destination QP), and {@link org.roce4j.wire.ladder.LadderSvg} draws a self-contained SVG or HTML
 * page: no script, no network. What counts as a retransmission is the caller's to say
 * ({@link org.roce4j.wire.ladder.FrameClassifier}): {@code roce4j ladder} asks its capture analysis,
 * the testkit a simpler rule; the wire facts (NAK and RNR NAK syndromes, bad ICRCs, frames the
 * fault injector dropped) are read here.
 */
package org.roce4j.wire.ladder;
