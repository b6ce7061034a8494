package org.roce4j.tools;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that opens devices (devices, devinfo, conformance, the pingpongs and perftests): it
 * takes them, and whom to tell when a server listens, from the {@link PeerEnvironment}
 * {@link Roce4j}'s factory hands it (a test's own fabric, or the system's devices).
 */
abstract class PeerCommand {
    @Spec
    CommandSpec spec;

    PeerEnvironment environment = PeerEnvironment.system();

    final void environment(PeerEnvironment peerEnvironment) {
        environment = peerEnvironment;
    }
}
