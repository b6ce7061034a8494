package org.roce4j.testkit;

/** When a test's pcap is kept under {@code target/roce4j-pcaps/<class>/<test>.pcap}. */
public enum Capture {
    /** Only when the test fails (the default): passing tests leave nothing behind. */
    ON_FAILURE,
    /** Always: to look at a passing test's conversation in Wireshark. */
    ALWAYS
}
