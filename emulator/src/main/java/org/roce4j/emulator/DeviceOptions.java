package org.roce4j.emulator;

import java.util.Locale;
import java.util.Objects;

/**
 * How an emulated device is chosen from outside the code: which {@link DeviceProfile} it models and
 * whether the process using it holds CAP_NET_RAW, and for a device on a UDP link whether the link uses
 * UDP segmentation offload and how it reads. Written as the query of a device spec,
 * {@code -d emu:192.168.77.1?profile=rxe-6.1&cap_net_raw=1&gso=1&rxpoll=app}, or as system properties for the
 * in-process provider's devices ({@value #PROFILE_PROPERTY}, {@value #CAP_NET_RAW_PROPERTY}).
 *
 * @param profile   the device modelled ({@link DeviceProfile#LINUX} when not given)
 * @param capNetRaw whether a modify may set a controlled Q_Key (see {@link SoftRnic.Builder#capNetRaw})
 * @param segmentationOffload {@code gso=1}: a UDP device's link sends with UDP GSO and reads with UDP GRO
 *     ({@code UdpLinkConfig.segmentationOffload}); nothing for an in-process device
 * @param receivePolling {@code rxpoll=off|app|spin}: how a UDP device's link reads ({@link ReceivePolling});
 *     nothing for an in-process device
 */
public record DeviceOptions(DeviceProfile profile, boolean capNetRaw, boolean segmentationOffload,
                            ReceivePolling receivePolling) {
    private static final String KEYS = "profile, cap_net_raw, gso, rxpoll";

    /** The in-process provider's devices model this profile ({@code -Droce4j.emulator.profile=rxe-6.12}). */
    public static final String PROFILE_PROPERTY = "roce4j.emulator.profile";
    /** The in-process provider's devices act for a process with CAP_NET_RAW ({@code -Droce4j.emulator.capNetRaw=true}). */
    public static final String CAP_NET_RAW_PROPERTY = "roce4j.emulator.capNetRaw";
    /** The default: the {@code linux} profile, an unprivileged process. */
    public static final DeviceOptions DEFAULT = new DeviceOptions(DeviceProfile.LINUX, false);

    /** The profile and CAP_NET_RAW, the UDP link's defaults. */
    public DeviceOptions(DeviceProfile profile, boolean capNetRaw) {
        this(profile, capNetRaw, false, ReceivePolling.OFF);
    }

    public DeviceOptions {
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(receivePolling, "receivePolling");
    }

    /**
     * {@return the options of a spec's query: {@code profile=ID}, {@code cap_net_raw=0|1}, {@code gso=0|1} and
     * {@code rxpoll=off|app|spin}, separated by {@code &}; the empty query is {@link #DEFAULT}}
     *
     * @throws IllegalArgumentException naming the key or value that is not understood
     */
    public static DeviceOptions parse(String query) {
        DeviceOptions options = DEFAULT;
        if (query.isEmpty()) {
            return options;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("'" + pair + "' is not KEY=VALUE (keys: " + KEYS + ")");
            }
            String key = pair.substring(0, eq);
            String value = pair.substring(eq + 1);
            DeviceOptions o = options;
            options = switch (key) {
                case "profile" -> new DeviceOptions(DeviceProfile.named(value), o.capNetRaw, o.segmentationOffload,
                        o.receivePolling);
                case "cap_net_raw" -> new DeviceOptions(o.profile, flag(key, value), o.segmentationOffload,
                        o.receivePolling);
                case "gso" -> new DeviceOptions(o.profile, o.capNetRaw, flag(key, value), o.receivePolling);
                case "rxpoll" -> new DeviceOptions(o.profile, o.capNetRaw, o.segmentationOffload, polling(value));
                default -> throw new IllegalArgumentException("unknown device option '" + key + "' (known: " + KEYS + ")");
            };
        }
        return options;
    }

    /**
     * {@return the options the system properties give the in-process provider's devices}
     *
     * @throws IllegalArgumentException when a property's value is not understood
     */
    public static DeviceOptions fromSystemProperties() {
        String profile = System.getProperty(PROFILE_PROPERTY);
        String capNetRaw = System.getProperty(CAP_NET_RAW_PROPERTY);
        return new DeviceOptions(profile == null ? DeviceProfile.LINUX : DeviceProfile.named(profile.strip()),
                capNetRaw != null && flag(CAP_NET_RAW_PROPERTY, capNetRaw));
    }

    /** {@return the builder, set to these options} */
    public SoftRnic.Builder applyTo(SoftRnic.Builder builder) {
        return builder.profile(profile).capNetRaw(capNetRaw);
    }

    private static ReceivePolling polling(String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "off", "0" -> ReceivePolling.OFF;
            case "app" -> ReceivePolling.APPLICATION;
            case "spin" -> ReceivePolling.SPIN;
            default -> throw new IllegalArgumentException("rxpoll=" + value + ": expected off, app or spin");
        };
    }

    private static boolean flag(String key, String value) {
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes" -> true;
            case "0", "false", "no" -> false;
            default -> throw new IllegalArgumentException(key + "=" + value + ": expected 1 or 0");
        };
    }
}
