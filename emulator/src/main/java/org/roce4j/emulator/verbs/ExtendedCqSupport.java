package org.roce4j.emulator.verbs;

import java.util.EnumSet;
import java.util.Set;

import org.roce4j.emulator.DeviceModel;
import org.roce4j.emulator.Quirk;
import org.roce4j.verbs.CreateCqWcFlag;
import org.roce4j.verbs.Errno;
import org.roce4j.verbs.VerbsException;

/**
 * Which {@code wc_flags} an extended CQ can be created with: the standard fields and completion timestamps
 * (the fabric's clock); rxe's provider only the standard ones ({@link Quirk#CQ_HAS_NO_COMPLETION_TIMESTAMPS}).
 * Anything else is EOPNOTSUPP, as providers/rxe/rxe.c rxe_create_cq_ex answers.
 */
final class ExtendedCqSupport {
    private static final Set<CreateCqWcFlag> WITH_TIMESTAMPS;

    static {
        EnumSet<CreateCqWcFlag> flags = EnumSet.copyOf(CreateCqWcFlag.STANDARD);
        flags.add(CreateCqWcFlag.COMPLETION_TIMESTAMP);
        WITH_TIMESTAMPS = flags;
    }

    private ExtendedCqSupport() {
    }

    static void check(DeviceModel model, Set<CreateCqWcFlag> asked) {
        Set<CreateCqWcFlag> supported = model.has(Quirk.CQ_HAS_NO_COMPLETION_TIMESTAMPS)
                ? CreateCqWcFlag.STANDARD : WITH_TIMESTAMPS;
        if (!supported.containsAll(asked)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "ibv_create_cq_ex: wc_flags " + asked + " beyond " + supported);
        }
    }
}
