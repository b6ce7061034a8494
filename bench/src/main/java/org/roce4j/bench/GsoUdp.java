package org.roce4j.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Two loopback UDP sockets, through libc, for the batched raw baseline: the sender sends with UDP GSO
 * (one sendmsg(2) with a UDP_SEGMENT control message carries several datagrams), the receiver has
 * UDP_GRO on (one recv(2) may return several datagrams of one flow, coalesced). The JDK's
 * DatagramChannel has neither. Linux x86-64 / aarch64 layouts (msghdr, cmsghdr, sockaddr_in).
 */
final class GsoUdp {
    private static final int AF_INET = 2;
    private static final int SOCK_DGRAM = 2;
    private static final int SOL_IP = 0;
    private static final int IP_MTU_DISCOVER = 10;
    private static final int IP_PMTUDISC_DO = 2;
    private static final int SOL_SOCKET = 1;
    private static final int SO_RCVBUF = 8;
    private static final int SOL_UDP = 17;
    private static final int UDP_SEGMENT = 103;
    private static final int UDP_GRO = 104;
    private static final int MSG_DONTWAIT = 0x40;
    static final int MAX_DATAGRAM_PAYLOAD = 65_507;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle SOCKET = libc("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle SETSOCKOPT = libc("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle BIND = libc("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKNAME = libc("getsockname",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SENDMSG = libc("sendmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle RECV = libc("recv",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle CLOSE = libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private final Arena arena = Arena.ofShared();
    private final int sender;
    private final int receiver;
    private final MemorySegment out;
    private final MemorySegment in;
    private final MemorySegment iov;
    private final MemorySegment control;
    private final MemorySegment message;

    GsoUdp(int segmentSize) throws Throwable {
        sender = socket();
        receiver = socket();
        setInt(sender, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO);
        setInt(receiver, SOL_SOCKET, SO_RCVBUF, 4 << 20);
        setInt(receiver, SOL_UDP, UDP_GRO, 1);
        MemorySegment address = sockaddrLoopback(0);
        check((int) BIND.invokeExact(receiver, address, 16), "bind");
        MemorySegment length = arena.allocate(JAVA_INT);
        length.set(JAVA_INT, 0, 16);
        check((int) GETSOCKNAME.invokeExact(receiver, address, length), "getsockname");
        out = arena.allocate(MAX_DATAGRAM_PAYLOAD, 4096);
        in = arena.allocate(1 << 16, 4096);
        iov = arena.allocate(16);
        iov.set(ADDRESS, 0, out);
        control = arena.allocate(24); // cmsghdr {size_t len; int level; int type;} + u16, padded
        control.set(JAVA_LONG, 0, 16 + 2);
        control.set(JAVA_INT, 8, SOL_UDP);
        control.set(JAVA_INT, 12, UDP_SEGMENT);
        control.set(JAVA_SHORT, 16, (short) segmentSize);
        message = arena.allocate(56); // msghdr
        message.set(ADDRESS, 0, address);
        message.set(JAVA_INT, 8, 16);
        message.set(ADDRESS, 16, iov);
        message.set(JAVA_LONG, 24, 1);
        message.set(ADDRESS, 32, control);
        message.set(JAVA_LONG, 40, 24);
    }

    /** Sends {@code bytes} as datagrams of the segment size in one call; false when the socket's buffer is full. */
    boolean send(int bytes) throws Throwable {
        iov.set(JAVA_LONG, 8, bytes);
        long sent = (long) SENDMSG.invokeExact(sender, message, MSG_DONTWAIT);
        return sent == bytes;
    }

    /** Bytes of one receive (several datagrams coalesced by GRO), or 0 when nothing is there. */
    int receive() throws Throwable {
        long n = (long) RECV.invokeExact(receiver, in, in.byteSize(), MSG_DONTWAIT);
        return n > 0 ? (int) n : 0;
    }

    void close() throws Throwable {
        int closedSender = (int) CLOSE.invokeExact(sender);
        int closedReceiver = (int) CLOSE.invokeExact(receiver);
        arena.close();
    }

    private MemorySegment sockaddrLoopback(int port) {
        MemorySegment address = arena.allocate(16);
        address.set(JAVA_SHORT, 0, (short) AF_INET);
        address.set(JAVA_BYTE, 2, (byte) (port >>> 8));
        address.set(JAVA_BYTE, 3, (byte) port);
        address.set(JAVA_BYTE, 4, (byte) 127);
        address.set(JAVA_BYTE, 7, (byte) 1);
        return address;
    }

    private static int socket() throws Throwable {
        int fd = (int) SOCKET.invokeExact(AF_INET, SOCK_DGRAM, 0);
        check(fd, "socket");
        return fd;
    }

    private void setInt(int fd, int level, int option, int value) throws Throwable {
        MemorySegment v = arena.allocate(JAVA_INT);
        v.set(JAVA_INT, 0, value);
        check((int) SETSOCKOPT.invokeExact(fd, level, option, v, 4), "setsockopt " + level + "/" + option);
    }

    private static void check(int result, String call) {
        if (result < 0) {
            throw new IllegalStateException(call + " failed");
        }
    }

    private static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor);
    }
}
