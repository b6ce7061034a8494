package org.roce4j.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** A one-connection TCP proxy to 127.0.0.1:target that keeps what went each way. */
final class RecordingTcpProxy implements AutoCloseable {
    private final ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    private final ByteArrayOutputStream up = new ByteArrayOutputStream();
    private final ByteArrayOutputStream down = new ByteArrayOutputStream();
    private final CompletableFuture<Void> closed;

    RecordingTcpProxy(int target, Executor threads) throws IOException {
        closed = CompletableFuture.runAsync(() -> {
            try (Socket client = listener.accept(); Socket server = new Socket(InetAddress.getLoopbackAddress(), target)) {
                CompletableFuture<Void> upstream = CompletableFuture.runAsync(() -> pump(client, server, up), threads);
                pump(server, client, down);
                upstream.join();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, threads);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Copies until end of stream, then half-closes the other side (as the peer's close would). */
    private static void pump(Socket from, Socket to, ByteArrayOutputStream log) {
        byte[] buffer = new byte[8192];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) > 0; ) {
                synchronized (log) {
                    log.write(buffer, 0, n);
                }
                out.write(buffer, 0, n);
            }
            to.shutdownOutput();
        } catch (IOException ignored) {
            // the other side closed first
        }
    }

    void awaitClosed() throws Exception {
        closed.get(30, TimeUnit.SECONDS);
    }

    byte[] upstream() {
        synchronized (up) {
            return up.toByteArray();
        }
    }

    byte[] downstream() {
        synchronized (down) {
            return down.toByteArray();
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
