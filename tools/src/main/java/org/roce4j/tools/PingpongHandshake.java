package org.roce4j.tools;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * The out-of-band TCP exchange of the rdma-core pingpong examples ({@code pp_client_exch_dest} and
 * {@code pp_server_exch_dest}), byte for byte as in {@code reference-pcaps/rxe_rc_pingpong.pcap}:
 * the client connects and writes its records (52 bytes each, one write per record); the server
 * reads them, connects its QPs to them, writes its own records; the client reads those and writes
 * {@code "done"} with its NUL (5 bytes); the server reads the 5 bytes; both close. RC, UC and UD
 * send one record each way, {@code ibv_srq_pingpong} always 256 (its {@code MAX_QP}).
 */
final class PingpongHandshake {
    static final byte[] DONE = "done\0".getBytes(US_ASCII);

    /** What the server does between reading the client's records and writing its own: connect its QPs. */
    @FunctionalInterface
    interface Connector {
        void connect(List<PingpongAddress> remote) throws PingpongFailure;
    }

    private PingpongHandshake() {}

    /**
     * The client side: connect to {@code host:port}, send {@code mine}, read as many records back,
     * send "done".
     */
    static List<PingpongAddress> client(String host, int port, List<PingpongAddress> mine) throws PingpongFailure {
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new PingpongFailure("Name or service not known for " + host + ":" + port); // gai_strerror(EAI_NONAME)
        }
        Socket socket = null;
        for (InetAddress address : addresses) { // as the examples walk getaddrinfo's list
            Socket candidate = new Socket();
            try {
                candidate.connect(new InetSocketAddress(address, port));
                socket = candidate;
                break;
            } catch (IOException e) {
                closeQuietly(candidate);
            }
        }
        if (socket == null) {
            throw new PingpongFailure("Couldn't connect to " + host + ":" + port);
        }
        try (Socket connection = socket) {
            OutputStream output = connection.getOutputStream();
            InputStream input = connection.getInputStream();
            try {
                for (PingpongAddress address : mine) {
                    output.write(address.encode());
                }
            } catch (IOException e) {
                throw new PingpongFailure("Couldn't send local address", e);
            }
            List<PingpongAddress> remote = new ArrayList<>(mine.size());
            for (int i = 0; i < mine.size(); i++) {
                byte[] record;
                try {
                    record = input.readNBytes(PingpongAddress.LENGTH);
                } catch (IOException e) {
                    throw new PingpongFailure("client read/write: " + e.getMessage() + "\nCouldn't read/write remote address");
                }
                if (record.length != PingpongAddress.LENGTH) {
                    throw new PingpongFailure("client read/write: Success\nCouldn't read/write remote address");
                }
                remote.add(parse(record));
            }
            try {
                output.write(DONE);
            } catch (IOException e) {
                throw new PingpongFailure("client read/write: " + e.getMessage() + "\nCouldn't read/write remote address");
            }
            return remote;
        } catch (IOException e) {
            throw new PingpongFailure("Couldn't read/write remote address", e);
        }
    }

    /**
     * The server side: listen on {@code port} (any address, SO_REUSEADDR, backlog 1), take one
     * connection, read {@code mine.size()} records, {@code connect} to them, write {@code mine},
     * read "done".
     *
     * @param listening told the bound port once the socket listens (tests use it to start the client)
     */
    static List<PingpongAddress> server(int port, List<PingpongAddress> mine, Connector connect, IntConsumer listening)
            throws PingpongFailure {
        Socket connection;
        try (ServerSocket listener = new ServerSocket()) {
            try {
                listener.setReuseAddress(true);
                listener.bind(new InetSocketAddress(port), 1);
            } catch (IOException e) {
                throw new PingpongFailure("Couldn't listen to port " + port);
            }
            listening.accept(listener.getLocalPort());
            try {
                connection = listener.accept();
            } catch (IOException e) {
                throw new PingpongFailure("accept() failed");
            }
        } catch (IOException e) {
            throw new PingpongFailure("Couldn't listen to port " + port, e);
        }
        boolean many = mine.size() > 1;
        try (Socket socket = connection) {
            InputStream input = socket.getInputStream();
            OutputStream output = socket.getOutputStream();
            List<PingpongAddress> remote = new ArrayList<>(mine.size());
            for (int i = 0; i < mine.size(); i++) {
                byte[] record;
                try {
                    record = input.readNBytes(PingpongAddress.LENGTH);
                } catch (IOException e) {
                    record = new byte[0];
                }
                if (record.length != PingpongAddress.LENGTH) {
                    throw new PingpongFailure("server read: Success\n" + record.length + "/" + PingpongAddress.LENGTH
                            + ": Couldn't read remote address" + (many ? " [" + i + "]" : ""));
                }
                remote.add(parse(record));
            }
            try {
                connect.connect(remote);
            } catch (PingpongFailure e) {
                throw new PingpongFailure(e.getMessage() + "\nCouldn't connect to remote QP");
            }
            try {
                for (PingpongAddress address : mine) {
                    output.write(address.encode());
                }
                byte[] done = input.readNBytes(DONE.length);
                if (done.length != DONE.length) {
                    throw new IOException("the client closed before \"done\"");
                }
            } catch (IOException e) {
                throw new PingpongFailure(many ? "client write: " + e.getMessage() : "Couldn't send/recv local address");
            }
            return remote;
        } catch (IOException e) {
            throw new PingpongFailure("Couldn't send/recv local address", e);
        }
    }

    private static PingpongAddress parse(byte[] record) throws PingpongFailure {
        try {
            return PingpongAddress.decode(record);
        } catch (IllegalArgumentException e) {
            throw new PingpongFailure("Couldn't parse remote address: " + e.getMessage());
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing was sent on it
        }
    }
}
