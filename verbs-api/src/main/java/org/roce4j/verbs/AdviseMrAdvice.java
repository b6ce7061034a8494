package org.roce4j.verbs;

/** What {@link Pd#adviseMr} asks of the device: {@code enum ibv_advise_mr_advice}. */
public enum AdviseMrAdvice {
    /** {@code IBV_ADVISE_MR_ADVICE_PREFETCH}: map the pages for reading. */
    PREFETCH(0),
    /** {@code IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE}: map the pages for writing (the region must be writable). */
    PREFETCH_WRITE(1),
    /** {@code IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT}: map only the pages already present, faulting none in. */
    PREFETCH_NO_FAULT(2);

    private final int value;

    AdviseMrAdvice(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_ADVISE_MR_ADVICE_*} value} */
    public int value() {
        return value;
    }
}
