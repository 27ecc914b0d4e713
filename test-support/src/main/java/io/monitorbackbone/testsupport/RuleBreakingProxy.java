package io.monitorbackbone.testsupport;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 relay in front of a real server that breaks one protocol rule as a client sees it, so a test can show
 * that a check fails against a server without that rule, with no switch for it in the server. Each request's head is
 * forwarded without one header (say {@code Origin}: the server then serves a web page's request as if it had no Origin
 * guard); the request line, every other header ({@code Host} included) and the body pass unchanged, and the answer
 * comes back as the server wrote it, streamed as it arrives (long-polls and SSE work through it).
 *
 * <p>One request per connection: the relay forwards each request with {@code Connection: close} and answers the client
 * with it, so no second request on a connection can pass unrewritten.
 */
public final class RuleBreakingProxy implements AutoCloseable {

    private static final int MAX_HEAD_BYTES = 64 * 1024;
    private static final byte[] CRLF = "\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection");

    private final String upstreamHost;
    private final int upstreamPort;
    private final String droppedHeader;
    private final ServerSocket listener;
    private final ExecutorService threads;
    private final AtomicInteger forwarded = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private RuleBreakingProxy(URI upstream, String droppedHeader) throws IOException {
        if (!"http".equals(upstream.getScheme()) || upstream.getHost() == null) {
            throw new IllegalArgumentException("the relay forwards to an http://host:port server, not " + upstream);
        }
        this.upstreamHost = upstream.getHost();
        this.upstreamPort = upstream.getPort() == -1 ? 80 : upstream.getPort();
        this.droppedHeader = droppedHeader.toLowerCase(Locale.ROOT);
        this.listener = new ServerSocket();
        this.listener.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "rule-breaking-proxy-" + listener.getLocalPort());
            t.setDaemon(true);
            return t;
        });
        threads.execute(this::accept);
    }

    /** A relay to {@code upstream} (http://host:port) that forwards every request without the header {@code name}. */
    public static RuleBreakingProxy withoutRequestHeader(URI upstream, String name) {
        try {
            return new RuleBreakingProxy(upstream, name);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the relay's port", e);
        }
    }

    /** Where clients reach the relay: http://127.0.0.1:port. */
    public URI baseUri() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Requests forwarded so far. */
    public int forwarded() {
        return forwarded.get();
    }

    /** Requests that carried the header and were forwarded without it. */
    public int dropped() {
        return dropped.get();
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket socket : open) {
            closeQuietly(socket);
        }
        threads.shutdownNow();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            threads.execute(() -> relay(client));
        }
    }

    private void relay(Socket client) {
        open.add(client);
        Socket server = null;
        try (client) {
            server = new Socket(upstreamHost, upstreamPort);
            open.add(server);
            InputStream fromClient = new BufferedInputStream(client.getInputStream());
            List<String> request = readHead(fromClient);
            if (request == null) {
                return;
            }
            OutputStream toServer = server.getOutputStream();
            toServer.write(requestHead(request));
            toServer.flush();
            forwarded.incrementAndGet();
            // The body, and whatever else the client sends, passes as it is; the client's end is the server's end.
            Socket upstream = server;
            threads.execute(() -> {
                try {
                    fromClient.transferTo(toServer);
                    upstream.shutdownOutput();
                } catch (IOException ignored) {
                    // one side is gone; the answer's copy below ends too
                }
            });
            InputStream fromServer = new BufferedInputStream(server.getInputStream());
            List<String> response = readHead(fromServer);
            if (response == null) {
                return;
            }
            OutputStream toClient = client.getOutputStream();
            toClient.write(responseHead(response));
            toClient.flush();
            byte[] buffer = new byte[8192];
            for (int n; (n = fromServer.read(buffer)) >= 0; ) {
                if (n > 0) {
                    toClient.write(buffer, 0, n);
                    toClient.flush();
                }
            }
        } catch (SocketException ignored) {
            // a side closed the connection: the relay has nothing left to do for it
        } catch (IOException ignored) {
            // the same, seen on a read or write
        } finally {
            open.remove(client);
            if (server != null) {
                open.remove(server);
                closeQuietly(server);
            }
        }
    }

    private byte[] requestHead(List<String> head) {
        List<String> out = new ArrayList<>();
        out.add(head.get(0));
        boolean removed = false;
        for (String line : head.subList(1, head.size())) {
            String name = name(line);
            if (name.equals(droppedHeader)) {
                removed = true;
            } else if (!HOP_BY_HOP.contains(name)) {
                out.add(line);
            }
        }
        if (removed) {
            dropped.incrementAndGet();
        }
        out.add("Connection: close");
        return join(out);
    }

    private static byte[] responseHead(List<String> head) {
        List<String> out = new ArrayList<>();
        out.add(head.get(0));
        for (String line : head.subList(1, head.size())) {
            if (!HOP_BY_HOP.contains(name(line))) {
                out.add(line);
            }
        }
        out.add("Connection: close");
        return join(out);
    }

    private static String name(String headerLine) {
        int colon = headerLine.indexOf(':');
        return (colon < 0 ? headerLine : headerLine.substring(0, colon)).trim().toLowerCase(Locale.ROOT);
    }

    private static byte[] join(List<String> lines) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (String line : lines) {
            bytes.writeBytes(line.getBytes(StandardCharsets.ISO_8859_1));
            bytes.writeBytes(CRLF);
        }
        bytes.writeBytes(CRLF);
        return bytes.toByteArray();
    }

    /** The lines of a message head up to the empty line, or null when the peer closed before sending one. */
    private static List<String> readHead(InputStream in) throws IOException {
        List<String> lines = new ArrayList<>();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int total = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            if (++total > MAX_HEAD_BYTES) {
                throw new IOException("message head over " + MAX_HEAD_BYTES + " bytes");
            }
            if (b == '\n') {
                String text = line.toString(StandardCharsets.ISO_8859_1);
                if (text.endsWith("\r")) {
                    text = text.substring(0, text.length() - 1);
                }
                line.reset();
                if (text.isEmpty()) {
                    if (lines.isEmpty()) {
                        continue; // stray empty lines before a request line are allowed
                    }
                    return lines;
                }
                lines.add(text);
            } else {
                line.write(b);
            }
        }
    }
}
