package org.roce4j.wire;

/** Placeholder replaced below. */
final class Psn {}
