package io.monitorbackbone.protocol.mcp;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A monitor's MCP resource URI, {@code monitor://{id}/definition} or {@code monitor://{id}/state}, with the token it may
 * carry ({@code ?token=...}); the same for the gateway's {@code /mcp} and for {@code mp mcp}.
 *
 * @param token null when the URI carries none
 */
public record MonitorUri(String uri, String monitorId, String view, String token) {
    public static final String SCHEME = "monitor://";
    public static final String MIME_TYPE = "application/json";
    private static final Pattern URI = Pattern.compile("^monitor://([\\w.-]{2,64})/(definition|state)(?:\\?(.*))?$");

    /** The URI's token, else the one the request carried otherwise (e.g. its Authorization header). */
    public String bearer(String otherwise) {
        return token != null ? token : otherwise;
    }

    public boolean state() {
        return view.equals("state");
    }

    public static boolean isMonitorUri(String uri) {
        return uri != null && uri.startsWith(SCHEME);
    }

    /** @throws ProtocolException NOT_FOUND for anything else, or a query with more than {@code token} */
    public static MonitorUri parse(String uri) {
        Matcher m = uri == null ? null : URI.matcher(uri);
        if (m == null || !m.matches()) {
            throw ProtocolException.of(
                            ErrorCode.NOT_FOUND,
                            "no such resource; monitor resources are "
                                    + "monitor://{id}/definition and monitor://{id}/state, optionally with ?token=<token>")
                    .with("uri", uri);
        }
        String token = null;
        if (m.group(3) != null) {
            for (String pair : m.group(3).split("&")) {
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair : pair.substring(0, eq);
                if (name.equals("token") && eq >= 0) {
                    token = URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                } else if (!name.isEmpty()) {
                    throw ProtocolException.of(
                                    ErrorCode.NOT_FOUND, "a monitor resource takes only the query parameter token")
                            .with("uri", uri);
                }
            }
        }
        return new MonitorUri(uri, m.group(1), m.group(2), token == null || token.isEmpty() ? null : token);
    }
}
