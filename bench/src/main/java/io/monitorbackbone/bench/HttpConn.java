package io.monitorbackbone.bench;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;

/**
 * One keep-alive HTTP/1.1 connection over a plain socket, used by one thread at a time. A load generator on the same
 * two cores as the server must cost as little as it can: no selector thread, no futures, no header maps, one write per
 * request and a buffered read of the status line, Content-Length (or chunked) and the body.
 */
final class HttpConn implements Closeable {

    record Response(int status, byte[] body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private final String host;
    private final int port;
    private final String hostHeader;
    private Socket socket;
    private BufferedOutputStream out;
    private InputStream in;
    private int connects;

    HttpConn(URI base) {
        this.host = base.getHost();
        this.port = base.getPort() < 0 ? 80 : base.getPort();
        this.hostHeader = host + ":" + port;
    }

    /** How often this connection had to be (re)opened: more than once means the server closed a keep-alive. */
    int connects() {
        return connects;
    }

    Response get(String path, String bearer) {
        return send("GET", path, bearer, null);
    }

    Response post(String path, String bearer, byte[] body) {
        return send("POST", path, bearer, body);
    }

    Response send(String method, String path, String bearer, byte[] body) {
        try {
            if (socket == null) {
                open();
            }
            StringBuilder head = new StringBuilder(160)
                    .append(method)
                    .append(' ')
                    .append(path)
                    .append(" HTTP/1.1\r\nHost: ")
                    .append(hostHeader)
                    .append("\r\n");
            if (bearer != null) {
                head.append("Authorization: Bearer ").append(bearer).append("\r\n");
            }
            if (body != null) {
                head.append("Content-Type: application/json\r\nContent-Length: ")
                        .append(body.length)
                        .append("\r\n");
            }
            out.write(head.append("\r\n").toString().getBytes(US_ASCII));
            if (body != null) {
                out.write(body);
            }
            out.flush();
            return read();
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(method + " " + path + " failed", e);
        }
    }

    private void open() throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(120_000);
        socket.connect(new InetSocketAddress(host, port), 10_000);
        out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
        in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        connects++;
    }

    private Response read() throws IOException {
        String status = line();
        if (!status.startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP response: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean close = false;
        for (String h = line(); !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = h.substring(0, colon).trim();
            String value = h.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                length = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
                chunked = true;
            } else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
                close = true;
            }
        }
        byte[] body;
        if (chunked) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int size = Integer.parseInt(line().split(";")[0].trim(), 16);
                    size > 0;
                    size = Integer.parseInt(line().split(";")[0].trim(), 16)) {
                all.write(in.readNBytes(size));
                line();
            }
            while (!line().isEmpty()) {
                // trailers
            }
            body = all.toByteArray();
        } else if (length >= 0) {
            body = in.readNBytes((int) length);
            if (body.length < length) {
                throw new EOFException("response body ended after " + body.length + " of " + length + " bytes");
            }
        } else {
            body = in.readAllBytes();
            close = true;
        }
        if (close) {
            close();
        }
        return new Response(code, body);
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder(64);
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("connection closed by the server");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            socket = null;
        }
    }
}
