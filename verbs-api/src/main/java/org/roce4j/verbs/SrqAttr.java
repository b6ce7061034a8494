package org.roce4j.verbs;

/** {@code struct ibv_srq_attr}: as queried, or the values of a modify. */
public record SrqAttr(int maxWr, int maxSge, int srqLimit) {
}
