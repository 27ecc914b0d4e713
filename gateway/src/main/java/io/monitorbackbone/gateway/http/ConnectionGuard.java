package io.monitorbackbone.gateway.http;

import io.monitorbackbone.gateway.GatewayConfig;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.quarkus.vertx.http.HttpServerStart;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.net.impl.TCPServerBase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * What the HTTP listener does before and between requests, where no route runs: every connection is watched from the
 * moment it is accepted.
 * <ul>
 * <li>A connection with no request in progress (just opened, or answered and kept alive) is closed after the idle
 * timeout ({@code MP_HTTP_IDLE_TIMEOUT}), however slowly it trickles the bytes of a request head.</li>
 * <li>A request's body must arrive within the read timeout ({@code MP_HTTP_READ_TIMEOUT}) of its head.</li>
 * <li>While a request is being answered there is no timeout: a long-poll parks up to {@code max_wait_seconds} and a
 * stream sends a heartbeat every 5 s.</li>
 * <li>Past {@code MP_HTTP_MAX_CONNECTIONS} open connections a new one is answered 503 {@code UNAVAILABLE} and
 * closed; the open ones are not touched.</li>
 * <li>Once the process is stopping (readiness DOWN, {@code MP_SHUTDOWN_DELAY}, the drain), every answer says
 * {@code Connection: close} and its connection is closed after it, an answer begun before the stop included: a load
 * balancer that keeps connections to this gateway then opens its next one to a gateway that stays.</li>
 * <li>A request the HTTP decoder cannot read (a bad request line, a URI or headers over the limits, a bad
 * {@code Content-Length}) is answered with a protocol error body (400 {@code INVALID}, 414 or 431 {@code TOO_LARGE})
 * and the connection closed, instead of the HTTP layer's empty answer.</li>
 * </ul>
 * The listener is Quarkus's; its accepting channel is reached once it is bound, and each accepted connection gets this
 * class's handlers in front of the HTTP layer's. HTTP/2 over cleartext is off, so every connection is HTTP/1.1 and
 * watched the same way.
 */
@ApplicationScoped
public class ConnectionGuard implements HttpServerOptionsCustomizer {
    private static final Logger LOGGER = Logger.getLogger(ConnectionGuard.class);
    /** Vert.x's HTTP handler, the last of the connection's pipeline; the watcher sits right before it. */
    private static final String VERTX_HANDLER = "handler";

    @Inject
    GatewayConfig config;

    @Inject
    Vertx vertx;

    @Inject
    io.monitorbackbone.gateway.Lifecycle lifecycle;

    private final AtomicInteger open = new AtomicInteger();
    private final Set<Channel> hooked = ConcurrentHashMap.newKeySet();

    @Override
    public void customizeHttpServer(HttpServerOptions options) {
        options.setHttp2ClearTextEnabled(false);
    }

    void started(@ObservesAsync HttpServerStart start) {
        int port = start.options().getPort();
        int found = 0;
        try {
            java.lang.reflect.Field bind = TCPServerBase.class.getDeclaredField("bindFuture");
            bind.setAccessible(true);
            for (TCPServerBase server :
                    ((VertxInternal) vertx).sharedHttpServers().values()) {
                if (server.actualPort() != port) {
                    continue;
                }
                @SuppressWarnings("unchecked")
                io.vertx.core.Future<Channel> future = (io.vertx.core.Future<Channel>) bind.get(server);
                Channel listener = future == null ? null : future.result();
                if (listener != null && hooked.add(listener)) {
                    listener.pipeline().addFirst("mp-accept", new Acceptor());
                    found++;
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOGGER.errorf("HTTP connection timeouts and the connection cap are NOT in force: %s", e.toString());
            return;
        }
        if (found == 0 && hooked.isEmpty()) {
            LOGGER.errorf(
                    "HTTP connection timeouts and the connection cap are NOT in force: no listener on port %d", port);
        }
    }

    private long idleMillis() {
        return config.http().idleTimeout().toMillis();
    }

    private long readMillis() {
        return config.http().readTimeout().toMillis();
    }

    /** On the listening channel: gives each accepted connection its watcher before the HTTP layer sets it up. */
    @ChannelHandler.Sharable
    private final class Acceptor extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Channel child) {
                child.pipeline().addFirst("mp-connection", new Connection());
            }
            ctx.fireChannelRead(msg);
        }
    }

    private enum Phase {
        IDLE,
        READING,
        ANSWERING
    }

    /** First in a connection's pipeline: the count, the cap, and the one timer. */
    private final class Connection extends ChannelDuplexHandler {
        private ChannelHandlerContext ctx;
        private ScheduledFuture<?> timer;
        private boolean counted;
        private Phase phase = Phase.IDLE;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            counted = true;
            if (open.incrementAndGet() > config.http().maxConnections()) {
                ctx.channel().config().setAutoRead(false);
                ProtocolException e = ProtocolException.of(
                                ErrorCode.UNAVAILABLE,
                                "the server has " + config.http().maxConnections()
                                        + " connections open, its limit; retry later")
                        .with("max_connections", config.http().maxConnections());
                ctx.writeAndFlush(Unpooled.wrappedBuffer(raw(503, "Service Unavailable", e)))
                        .addListener(ChannelFutureListener.CLOSE);
                return;
            }
            arm(idleMillis());
            ctx.fireChannelActive();
            ctx.executor().execute(this::watch);
        }

        /** Puts the watcher between the HTTP decoder and Vert.x's handler, once the HTTP layer has set up the pipeline. */
        private void watch() {
            if (!ctx.channel().isActive() || ctx.pipeline().get(Watcher.class) != null) {
                return;
            }
            if (ctx.pipeline().get(VERTX_HANDLER) == null) {
                ctx.executor().schedule(this::watch, 10, TimeUnit.MILLISECONDS);
                return;
            }
            ctx.pipeline().addBefore(VERTX_HANDLER, "mp-watch", new Watcher(this, lifecycle::stopping));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            cancel();
            if (counted) {
                counted = false;
                open.decrementAndGet();
            }
            super.channelInactive(ctx);
        }

        void head() {
            phase = Phase.READING;
            arm(readMillis());
        }

        void bodyDone() {
            if (phase == Phase.READING) {
                phase = Phase.ANSWERING;
                cancel();
            }
        }

        void answered() {
            if (phase == Phase.ANSWERING) {
                phase = Phase.IDLE;
                arm(idleMillis());
            }
        }

        private void arm(long millis) {
            cancel();
            timer = ctx.executor()
                    .schedule(
                            () -> {
                                LOGGER.debugf(
                                        "closing %s: %s",
                                        ctx.channel().remoteAddress(),
                                        phase == Phase.READING
                                                ? "its request was not read within the read timeout"
                                                : "idle past the idle timeout");
                                ctx.close();
                            },
                            millis,
                            TimeUnit.MILLISECONDS);
        }

        private void cancel() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }

    /** After the HTTP decoder: sees each request head, the end of its body, the end of each answer. */
    private static final class Watcher extends ChannelDuplexHandler {
        private final Connection connection;
        private final java.util.function.BooleanSupplier stopping;
        private boolean refused;

        Watcher(Connection connection, java.util.function.BooleanSupplier stopping) {
            this.connection = connection;
            this.stopping = stopping;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (refused) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (msg instanceof HttpRequest request) {
                if (request.decoderResult().isFailure()) {
                    refused = true;
                    ReferenceCountUtil.release(msg);
                    refuse(ctx, request.decoderResult().cause());
                    return;
                }
                connection.head();
            }
            if (msg instanceof LastHttpContent) {
                if (((LastHttpContent) msg).decoderResult().isFailure()) {
                    refused = true;
                    ReferenceCountUtil.release(msg);
                    refuse(ctx, ((LastHttpContent) msg).decoderResult().cause());
                    return;
                }
                connection.bodyDone();
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            boolean last = msg instanceof LastHttpContent;
            if (msg instanceof FullHttpResponse response
                    && response.status().code() >= 400
                    && response.content().readableBytes() == 0) {
                try {
                    msg = withBody(response);
                } catch (RuntimeException e) {
                    LOGGER.warnf(
                            "an empty %d answer is sent as it is: %s",
                            response.status().code(), e.toString());
                }
            }
            boolean closing = stopping.getAsBoolean();
            if (closing && msg instanceof HttpResponse response) {
                // The process is stopping: this answer is the connection's last, so that a load balancer that keeps
                // connections to this gateway opens its next one to a gateway that is staying.
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            if (last && closing) {
                // Also an answer begun before the stop (a long-poll parked, a stream opened) ends its connection,
                // which its client learns by the close. Vert.x may write with a void promise, which takes no listener.
                ChannelPromise written = promise.unvoid();
                ctx.write(msg, written);
                written.addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.write(msg, promise);
            }
            if (last) {
                connection.answered();
            }
        }

        /**
         * An empty refusal from below the routes (the HTTP layer refuses a path it cannot decode, such as {@code %zz},
         * before any route runs) gets the protocol error body every refusal has.
         */
        private static FullHttpResponse withBody(FullHttpResponse empty) {
            int status = empty.status().code();
            ErrorCode code = switch (status) {
                case 400 -> ErrorCode.INVALID;
                case 404, 405 -> ErrorCode.NOT_FOUND;
                case 413, 414, 431 -> ErrorCode.TOO_LARGE;
                case 401 -> ErrorCode.UNAUTHORIZED;
                case 403 -> ErrorCode.ORIGIN_REFUSED;
                default -> ErrorCode.UNAVAILABLE;
            };
            byte[] body = Json.bytes(ProtocolException.of(
                            code,
                            "the request was refused before it reached a route: "
                                    + empty.status().reasonPhrase().toLowerCase(java.util.Locale.ROOT)
                                    + (status == 400 ? " (is the path percent-encoded correctly?)" : ""))
                    .toJson());
            FullHttpResponse full =
                    new DefaultFullHttpResponse(empty.protocolVersion(), empty.status(), Unpooled.wrappedBuffer(body));
            full.headers().set(empty.headers());
            empty.release();
            full.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, "application/json; charset=utf-8")
                    .set(HttpHeaderNames.CONTENT_LENGTH, body.length)
                    .set(HttpHeaderNames.CACHE_CONTROL, "no-store");
            return full;
        }

        private static void refuse(ChannelHandlerContext ctx, Throwable cause) {
            int status;
            ProtocolException e;
            if (cause instanceof TooLongHttpLineException) {
                status = 414;
                e = ProtocolException.of(ErrorCode.TOO_LARGE, "the request line is too long");
            } else if (cause instanceof TooLongHttpHeaderException) {
                status = 431;
                e = ProtocolException.of(ErrorCode.TOO_LARGE, "the request headers are too large");
            } else {
                status = 400;
                e = ProtocolException.of(
                        ErrorCode.INVALID,
                        "the request could not be read as HTTP/1.1"
                                + (cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage()));
            }
            byte[] body = Json.bytes(e.toJson());
            FullHttpResponse response = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body));
            response.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, "application/json; charset=utf-8")
                    .set(HttpHeaderNames.CONTENT_LENGTH, body.length)
                    .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                    .set(HttpHeaderNames.CONNECTION, "close");
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** A whole HTTP/1.1 answer as bytes, for a connection refused before the HTTP layer reads it. */
    private static byte[] raw(int status, String reason, ProtocolException e) {
        byte[] body = Json.bytes(e.toJson());
        String head = "HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: application/json; charset=utf-8\r\n"
                + "Content-Length: " + body.length + "\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[h.length + body.length];
        System.arraycopy(h, 0, out, 0, h.length);
        System.arraycopy(body, 0, out, h.length, body.length);
        return out;
    }
}
