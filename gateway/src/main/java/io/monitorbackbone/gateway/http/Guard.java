package io.monitorbackbone.gateway.http;

import io.monitorbackbone.gateway.GatewayConfig;
import io.monitorbackbone.gateway.rest.Answers;
import io.monitorbackbone.gateway.service.PublishService;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Runs before every route: only GET, POST and OPTIONS exist; a web page (a foreign {@code Origin}) or a rebinding
 * {@code Host} is refused unless configured (MCP's Streamable HTTP asks the same of {@code /mcp}); bodies over 1 MiB
 * are refused from their {@code Content-Length} before being read; only {@code /mp/v0}, {@code /mcp} and the web
 * console's files ({@link Console}) are served. A page the server served itself (its {@code Origin} is this server
 * under a name it answers to) is not a foreign page: the console calls the API from there.
 */
@ApplicationScoped
public class Guard implements Handler<RoutingContext> {
    static final int MAX_BODY_BYTES = 1_048_576;
    /** The MCP endpoint (Streamable HTTP); the extension's legacy SSE paths under it are not served. */
    static final String MCP = "/mcp";

    private static final Set<String> LOOPBACK_NAMES = Set.of("localhost", "127.0.0.1", "::1", "[::1]");

    private static final Pattern PUBLISH = Pattern.compile("^/mp/v0/monitors/([^/]+)/observations(?:/batch)?$");

    @Inject
    GatewayConfig config;

    @Inject
    PublishService publishing;

    @ConfigProperty(name = "quarkus.http.host")
    String listenHost;

    @Override
    public void handle(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        HttpMethod method = request.method();
        boolean mcp = request.path().equals(MCP);
        // DELETE exists only on /mcp, where an MCP client ends its session with it.
        if (method != HttpMethod.GET
                && method != HttpMethod.POST
                && method != HttpMethod.OPTIONS
                && !(mcp && method == HttpMethod.DELETE)) {
            Replies.error(ctx, ProtocolException.of(ErrorCode.NOT_FOUND, "unsupported method " + method.name()));
            return;
        }
        String origin = request.getHeader("Origin");
        String host = hostName(request.getHeader("Host"));
        boolean knownHost =
                host != null && (LOOPBACK_NAMES.contains(host) || allowedHosts().contains(host));
        if (origin != null
                && !allowedOrigins().contains(origin)
                && !Console.sameOrigin(origin, request.getHeader("Host"), knownHost)) {
            Replies.error(
                    ctx,
                    ProtocolException.of(
                            ErrorCode.ORIGIN_REFUSED,
                            "requests from web pages on " + origin + " are refused; set MP_ALLOW_ORIGIN=" + origin
                                    + " to allow one"));
            return;
        }
        if (isLoopback(listenHost) && host != null && !knownHost) {
            Replies.error(
                    ctx,
                    ProtocolException.of(
                            ErrorCode.ORIGIN_REFUSED,
                            "the Host " + host
                                    + " does not name this server; requests reached through another name are refused"));
            return;
        }
        if (origin != null) {
            ctx.response().putHeader("Access-Control-Allow-Origin", origin).putHeader("Vary", "Origin");
            if (mcp) {
                ctx.response().putHeader("Access-Control-Expose-Headers", "Mcp-Session-Id");
            }
        }
        if (method == HttpMethod.OPTIONS) {
            if (origin == null) {
                Replies.error(
                        ctx, ProtocolException.of(ErrorCode.NOT_FOUND, "unsupported method OPTIONS without Origin"));
                return;
            }
            ctx.response()
                    .setStatusCode(204)
                    .putHeader(
                            "Access-Control-Allow-Methods", mcp ? "GET, POST, DELETE, OPTIONS" : "GET, POST, OPTIONS")
                    .putHeader(
                            "Access-Control-Allow-Headers",
                            mcp
                                    ? "Authorization, Content-Type, Accept, Last-Event-ID, Mcp-Session-Id, Mcp-Protocol-Version"
                                    : "Authorization, Content-Type, Last-Event-ID")
                    .putHeader("Access-Control-Max-Age", "600")
                    .end();
            return;
        }
        String length = request.getHeader("Content-Length");
        if (length != null && isOver(length)) {
            ctx.response().putHeader("Connection", "close");
            refuseTooLarge(ctx, Long.parseLong(length.trim()));
            return;
        }
        if (method == HttpMethod.GET && Console.serves(request.path())) {
            Console.secure(ctx);
            ctx.next();
            return;
        }
        if (!mcp && !request.path().equals(Answers.BASE) && !request.path().startsWith(Answers.BASE + "/")) {
            Replies.error(
                    ctx,
                    ProtocolException.of(
                            ErrorCode.NOT_FOUND,
                            "unknown route; the protocol is served under /mp/v0 (MCP at /mcp, the web console at /)"));
            return;
        }
        ctx.next();
    }

    /** A refused publish is evidence even unread: the publish route records it when the owner sent it. */
    void refuseTooLarge(RoutingContext ctx, long bytes) {
        Matcher publish = PUBLISH.matcher(ctx.request().path());
        if (ctx.request().method() != HttpMethod.POST || !publish.matches()) {
            Replies.error(ctx, tooLarge());
            return;
        }
        String monitor = publish.group(1);
        String bearer = Answers.bearer(ctx.request().getHeader("Authorization"));
        // Recording the refusal completes from Kafka's acknowledgement; the answer is written on the request's context.
        io.vertx.core.Context context = ctx.vertx().getOrCreateContext();
        io.vertx.core.Future.fromCompletionStage(publishing.refuseTooLarge(monitor, bearer, tooLarge(), bytes), context)
                .onComplete(done -> Replies.failure(ctx, done.cause()));
    }

    static ProtocolException tooLarge() {
        return ProtocolException.of(ErrorCode.TOO_LARGE, "request bodies over " + MAX_BODY_BYTES + " bytes are refused")
                .with("limit_bytes", MAX_BODY_BYTES);
    }

    private static boolean isOver(String contentLength) {
        try {
            return Long.parseLong(contentLength.trim()) > MAX_BODY_BYTES;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private Set<String> allowedOrigins() {
        return new HashSet<>(config.allowOrigin().orElse(List.of()));
    }

    private Set<String> allowedHosts() {
        return new HashSet<>(config.allowHost().orElse(List.of()));
    }

    private static boolean isLoopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
    }

    /** The host part of a Host header, without the port. */
    static String hostName(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String h = header.trim().toLowerCase(java.util.Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(0, end + 1);
        }
        int colon = h.indexOf(':');
        return colon < 0 ? h : h.substring(0, colon);
    }
}
