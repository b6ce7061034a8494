package org.roce4j.tools.analyze;

/** One broken rule: which, at which frame (numbered from 1 as Wireshark does), and what was seen. */
public record Violation(ViolationKind kind, long frame, String detail) {}
