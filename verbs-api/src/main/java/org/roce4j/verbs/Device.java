package org.roce4j.verbs;

/** An RDMA device as {@code ibv_get_device_list} lists it. */
public interface Device {
    /** The kernel-style name, e.g. {@code rxe0} or {@code mlx5_0}. */
    String name();

    /** Node GUID, as {@code ibv_get_device_guid} returns it (host byte order here). */
    long guid();

    /** The name of the provider that owns the device ({@code emulator}, {@code ibverbs}). */
    String providerName();

    /** Opens a context on the device: {@code ibv_open_device}. */
    Context open();
}
