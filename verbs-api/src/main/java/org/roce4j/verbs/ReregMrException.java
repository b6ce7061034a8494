package org.roce4j.verbs;

import java.util.Objects;

/**
 * A failed {@code ibv_rereg_mr}: the errno, and which of {@code enum ibv_rereg_mr_err_code} libibverbs
 * returned. After {@link ErrorCode#INPUT} nothing was asked of the device and the region is unchanged; after
 * {@link ErrorCode#CMD} the device refused (the emulator then leaves the region as it was; {@code
 * ibv_rereg_mr(3)} promises only that the region must still be deregistered).
 */
public class ReregMrException extends VerbsException {
    private static final long serialVersionUID = 1L;

    /** {@code enum ibv_rereg_mr_err_code}: where {@code ibv_rereg_mr} failed. */
    public enum ErrorCode {
        /** {@code IBV_REREG_MR_ERR_INPUT} (-1): libibverbs refused the arguments (errno EINVAL). */
        INPUT(-1),
        /** {@code IBV_REREG_MR_ERR_DONT_FORK_NEW} (-2): madvise on the new range failed. */
        DONT_FORK_NEW(-2),
        /** {@code IBV_REREG_MR_ERR_DO_FORK_OLD} (-3): the device changed the region, undoing madvise on the old range failed. */
        DO_FORK_OLD(-3),
        /** {@code IBV_REREG_MR_ERR_CMD} (-4): the provider or the kernel refused (errno says why). */
        CMD(-4),
        /** {@code IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW} (-5): as CMD, and undoing madvise on the new range failed. */
        CMD_AND_DO_FORK_NEW(-5);

        private final int value;

        ErrorCode(int value) {
            this.value = value;
        }

        /** {@return the value {@code ibv_rereg_mr} returns} */
        public int value() {
            return value;
        }

        /**
         * {@return the code of a negative return value; CMD for one libibverbs does not define}
         *
         * @param value what {@code ibv_rereg_mr} returned
         */
        public static ErrorCode of(int value) {
            for (ErrorCode code : values()) {
                if (code.value == value) {
                    return code;
                }
            }
            return CMD;
        }
    }

    /** What libibverbs returned, besides the errno. */
    private final ErrorCode code;

    /**
     * A failed reregistration.
     *
     * @param code    what {@code ibv_rereg_mr} returned
     * @param errno   the errno it left
     * @param message what was wrong
     */
    public ReregMrException(ErrorCode code, Errno errno, String message) {
        super(errno, "ibv_rereg_mr " + code + ": " + message);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** {@return what {@code ibv_rereg_mr} returned} */
    public ErrorCode code() {
        return code;
    }
}
