package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.function.IntConsumer;

import org.roce4j.verbs.Mtu;

/**
 * perftest 6.06's out-of-band exchange (its {@code perftest_communication.c} as Debian ships it;
 * {@code reference-pcaps/rxe_write_bw.pcap} and {@code rxe_write_lat.pcap} are the authority for TCP,
 * {@code rxe_rping_cm.pcap} for {@code -R}). Every exchange is symmetric: the client writes its part
 * then reads the peer's, the server reads first then writes; each read must return exactly the size
 * of the part. The pieces, in the order the tools use them:
 * <ol>
 *   <li>{@link #exchangeVersion}: 16 bytes, the version string NUL-padded ("6.06");</li>
 *   <li>{@link #exchangeMax} twice: a 4-byte big-endian int (cycle buffer, then cache line size),
 *       each side keeping the larger;</li>
 *   <li>{@link #exchangeMtu}: 2 bytes, the {@code ibv_mtu} enum as a decimal string and NUL;</li>
 *   <li>{@link #handShake}: one {@link PerftestAddress} record each way, as often as the tool's
 *       script says — 108 bytes of text over TCP, 56 bytes of {@code struct pingpong_dest} with
 *       {@code -R};</li>
 *   <li>{@link #exchangeBwReport} (bandwidth tools): size, iterations (8-byte big-endian integers),
 *       peak bandwidth, average bandwidth, message rate (big-endian doubles), each field a separate
 *       exchange;</li>
 *   <li>{@link #closeConnection}: a last record exchange, then over TCP each side writes "done\0"
 *       and closes without reading the peer's.</li>
 * </ol>
 * The parts travel over a {@link Link}: perftest's TCP socket, or with {@code -R} SENDs on an RC QP
 * that rdma_cm connected ({@link PerftestCmLink}); the bytes of each part are the same on both but
 * the record's.
 */
final class PerftestHandshake implements Closeable {
    static final int DEFAULT_PORT = 18515;
    static final String VERSION = "6.06";
    static final int VERSION_BYTES = 16;
    static final byte[] DONE = "done\0".getBytes(US_ASCII);

    /** The five fields of {@code struct bw_report_data} that go over the wire. */
    record BwReport(long size, long iters, double bwPeak, double bwAverage, double msgRate) {
        static final BwReport NONE = new BwReport(0, 0, 0, 0, 0);
    }

    /** What carries the parts: a byte stream or a message channel, read exactly {@code length} at a time. */
    interface Link {
        void write(byte[] part) throws PingpongFailure;

        byte[] read(int length) throws PingpongFailure;

        /** {@code -R}: records travel as {@code struct pingpong_dest}, and no "done" ends the talk. */
        boolean rdmaCm();

        void close();
    }

    private final Link link;
    private final boolean client;
    /** The GID index our rdma_cm records carry (perftest's {@code gid_index}; nothing reads it). */
    private final int gidIndex;

    PerftestHandshake(Link link, boolean client, int gidIndex) {
        this.link = link;
        this.client = client;
        this.gidIndex = gidIndex;
    }

    /** The client's side: connect to {@code host:port} (each address of the name in turn). */
    static PerftestHandshake connect(String host, int port) throws PingpongFailure {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new PingpongFailure("Name or service not known for " + host + ":" + port);
        }
        for (InetAddress address : addresses) {
            Socket socket = new Socket();
            try {
                socket.connect(new InetSocketAddress(address, port));
                return new PerftestHandshake(new TcpLink(socket), true, 0);
            } catch (IOException e) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // nothing was sent on it
                }
            }
        }
        throw new PingpongFailure("Couldn't connect to " + host + ":" + port + "\n Unable to open file descriptor for socket connection");
    }

    /** The server's side: listen on {@code port} (any address), take one connection. */
    static PerftestHandshake accept(int port, IntConsumer listening) throws PingpongFailure {
        try (ServerSocket listener = new ServerSocket()) {
            try {
                listener.setReuseAddress(true);
                listener.bind(new InetSocketAddress(port), 1);
            } catch (IOException e) {
                throw new PingpongFailure("Couldn't listen to port " + port);
            }
            listening.accept(listener.getLocalPort());
            return new PerftestHandshake(new TcpLink(listener.accept()), false, 0);
        } catch (IOException e) {
            throw new PingpongFailure("Couldn't accept a connection on port " + port, e);
        }
    }

    /** perftest's socket: parts are written and read as they are. */
    private static final class TcpLink implements Link {
        private final Socket socket;
        private final InputStream input;
        private final OutputStream output;

        TcpLink(Socket socket) throws IOException {
            this.socket = socket;
            this.input = socket.getInputStream();
            this.output = socket.getOutputStream();
        }

        @Override
        public void write(byte[] part) throws PingpongFailure {
            try {
                output.write(part);
                output.flush();
            } catch (IOException e) {
                throw new PingpongFailure(" Failed to exchange data between server and clients", e);
            }
        }

        @Override
        public byte[] read(int length) throws PingpongFailure {
            byte[] part;
            try {
                part = input.readNBytes(length);
            } catch (IOException e) {
                throw new PingpongFailure(" Failed to exchange data between server and clients", e);
            }
            if (part.length != length) {
                throw new PingpongFailure(" Failed to exchange data between server and clients (read " + part.length
                        + " of " + length + " bytes)");
            }
            return part;
        }

        @Override
        public boolean rdmaCm() {
            return false;
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing is all that is left
            }
        }
    }

    boolean client() {
        return client;
    }

    /** One symmetric exchange of equal-sized parts; returns the peer's part. */
    byte[] exchange(byte[] mine) throws PingpongFailure {
        if (client) {
            link.write(mine);
            return link.read(mine.length);
        }
        byte[] theirs = link.read(mine.length);
        link.write(mine);
        return theirs;
    }

    /** The version strings; a peer older than 5.70 is refused, as perftest refuses it. */
    String exchangeVersion(String mine) throws PingpongFailure {
        byte[] theirs = exchange(versionBytes(mine));
        int end = 0;
        while (end < theirs.length && theirs[end] != 0) {
            end++;
        }
        String version = new String(theirs, 0, end, US_ASCII);
        if (compareVersions(version, "5.70") < 0) {
            throw new PingpongFailure("Current implementation is not compatible with the remote perftest version "
                    + version + " (older than 5.70)");
        }
        return version;
    }

    static byte[] versionBytes(String version) {
        byte[] bytes = new byte[VERSION_BYTES];
        byte[] ascii = version.getBytes(US_ASCII);
        System.arraycopy(ascii, 0, bytes, 0, Math.min(ascii.length, VERSION_BYTES - 1));
        return bytes;
    }

    /** Compares "major.minor" strings numerically (an unparsable part counts as 0). */
    static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int c = Integer.compare(number(x, i), number(y, i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static int number(String[] parts, int i) {
        try {
            return i < parts.length ? Integer.parseInt(parts[i].strip()) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** A 4-byte big-endian int each way; returns the larger. */
    int exchangeMax(int mine) throws PingpongFailure {
        int theirs = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(mine).array())).getInt();
        return Math.max(mine, theirs);
    }

    static byte[] mtuBytes(Mtu mtu) {
        return new byte[] {(byte) ('0' + mtu.value()), 0};
    }

    /** The MTU enums as 2-byte strings; returns the smaller of the two. */
    Mtu exchangeMtu(Mtu mine) throws PingpongFailure {
        byte[] theirs = exchange(mtuBytes(mine));
        int value = theirs[0] - '0';
        if (value < 1 || value > 5) {
            throw new PingpongFailure(" Received an invalid MTU from the remote: \"" + (char) theirs[0] + "\"");
        }
        return value < mine.value() ? Mtu.of(value) : mine;
    }

    /** One address record each way: 108 bytes of text, or with {@code -R} 56 of {@code struct pingpong_dest}. */
    PerftestAddress handShake(PerftestAddress mine) throws PingpongFailure {
        try {
            if (link.rdmaCm()) {
                return PerftestAddress.decodeFromRdmaCm(exchange(mine.encodeForRdmaCm(gidIndex)));
            }
            return PerftestAddress.decode(exchange(mine.encode()));
        } catch (IllegalArgumentException e) {
            throw new PingpongFailure("Couldn't parse remote address: " + e.getMessage());
        }
    }

    /**
     * {@code create_rdma_cm_connection}'s sync ({@code -R}, before and after the rdma_cm connect): a
     * record exchange while {@code my_dest} is still as {@code memset} left it, every field 0, the GID
     * index too ({@code rxe_rping_cm.pcap} frames 85, 87, 92, 94).
     */
    void syncBeforeSetUp() throws PingpongFailure {
        exchange(PerftestAddress.EMPTY.encodeForRdmaCm(0));
    }

    /** The bandwidth report, field by field. */
    BwReport exchangeBwReport(BwReport mine) throws PingpongFailure {
        long size = exchangeLong(mine.size());
        long iters = exchangeLong(mine.iters());
        double peak = Double.longBitsToDouble(exchangeLong(Double.doubleToRawLongBits(mine.bwPeak())));
        double average = Double.longBitsToDouble(exchangeLong(Double.doubleToRawLongBits(mine.bwAverage())));
        double rate = Double.longBitsToDouble(exchangeLong(Double.doubleToRawLongBits(mine.msgRate())));
        return new BwReport(size, iters, peak, average, rate);
    }

    private long exchangeLong(long mine) throws PingpongFailure {
        return ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putLong(mine).array())).getLong();
    }

    /**
     * {@code ctx_close_connection}: a last record exchange, then over TCP "done\0" written (not read);
     * with {@code -R} nothing more ({@code !use_rdma_cm && !work_rdma_cm} guards the write).
     */
    void closeConnection(PerftestAddress mine) throws PingpongFailure {
        handShake(mine);
        if (!link.rdmaCm()) {
            link.write(DONE);
        }
    }

    @Override
    public void close() {
        link.close();
    }
}
