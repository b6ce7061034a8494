package org.roce4j.verbs;

/** An RDMA device as {@code ibv_get_device_list} lists it. */
public interface Device {
    /** {@return the kernel-style name, e.g. {@code rxe0} or {@code mlx5_0} ({@code ibv_get_device_name})} */
    String name();

    /** {@return the node GUID, as {@code ibv_get_device_guid} returns it (host byte order here)} */
    long guid();

    /** {@return the name of the provider that owns the device ({@code emulator}, {@code ibverbs})} */
    String providerName();

    /** {@return a context on the device: {@code ibv_open_device}} */
    Context open();
}
