package org.roce4j.cm;

import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * The errno a synchronous librdmacm call returns when its event is not the one it waited for
 * (librdmacm cma.c {@code ucma_complete}): ECONNREFUSED for REJECTED, the negated status of a
 * failure event (UNREACHABLE's −ETIMEDOUT → ETIMEDOUT), ETIMEDOUT when no event came in time.
 */
final class CmEventFailure {
    private CmEventFailure() {
    }

    static VerbsException of(String call, CmEventType expected, CmEventType type, int status) {
        Errno errno = type == CmEventType.REJECTED ? Errno.ECONNREFUSED
                : status < 0 ? Errno.of(-status) : Errno.EIO;
        String detail = type == CmEventType.REJECTED ? " (REJ reason " + status + ")" : status != 0 ? " status " + status : "";
        return new VerbsException(errno, call + ": " + type.cName() + detail + " where " + expected.cName() + " was awaited");
    }

    static VerbsException noEvent(String call, CmEventType expected) {
        return new VerbsException(Errno.ETIMEDOUT, call + ": no " + expected.cName() + " in time");
    }
}
