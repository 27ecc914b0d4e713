package io.monitorbackbone.gateway.http;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The web console: static files under {@code META-INF/resources} ({@code index.html} at {@code /}, the rest under
 * {@code /console/}), served by Quarkus's static handler once the {@link Guard} lets a GET of one of those paths
 * through. The console is a client of the public API like any other: it holds no token the server gave it, reads
 * nothing the API does not serve, and every page it loads runs under a policy that lets it talk to this origin only.
 */
final class Console {
    /** The console's own files: {@code /} and one level of plain file names under {@code /console/}. */
    private static final Pattern ASSET = Pattern.compile("^/console/[a-z0-9][a-z0-9-]*\\.(?:js|css|svg)$");

    /**
     * Scripts, styles, images and connections from this origin only; no inline script or style, no plugin, no frame
     * around it, no form posted elsewhere, no {@code <base>} to move relative URLs: the page can reach nothing but the
     * API it was served with.
     */
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private Console() {}

    /** A path the console serves (for a GET). */
    static boolean serves(String path) {
        return path.equals("/") || ASSET.matcher(path).matches();
    }

    /**
     * The console's headers, on every file of it: the policy above, no sniffing, no referrer, and a file revalidated
     * each time (an upgraded server serves its own console at once). A miss is the router's protocol error body, which
     * says {@code no-store} itself.
     */
    static void secure(RoutingContext ctx) {
        HttpServerResponse response = ctx.response();
        response.putHeader("Content-Security-Policy", POLICY)
                .putHeader("X-Content-Type-Options", "nosniff")
                .putHeader("Referrer-Policy", "no-referrer")
                .putHeader("Cross-Origin-Opener-Policy", "same-origin");
        ctx.addHeadersEndHandler(end -> {
            if (response.getStatusCode() < 400) {
                response.putHeader("Cache-Control", "no-cache");
            }
        });
    }

    /**
     * A request from a page this server served: its {@code Origin} is this server's own, {@code http://} or
     * {@code https://} (a proxy in front may end TLS) followed by exactly the request's {@code Host}, and that host is
     * a name the server answers to (a loopback name, or one of {@code MP_ALLOW_HOST}). Any other origin still needs
     * {@code MP_ALLOW_ORIGIN}. The host must be a known name because a rebinding attacker controls both headers: a page
     * of {@code http://evil.example:8130} whose name resolves to this server sends {@code Host: evil.example:8130}.
     */
    static boolean sameOrigin(String origin, String hostHeader, boolean knownHost) {
        if (origin == null || hostHeader == null || hostHeader.isBlank() || !knownHost) {
            return false;
        }
        String o = origin.trim().toLowerCase(Locale.ROOT);
        String h = hostHeader.trim().toLowerCase(Locale.ROOT);
        return o.equals("http://" + h) || o.equals("https://" + h);
    }
}
