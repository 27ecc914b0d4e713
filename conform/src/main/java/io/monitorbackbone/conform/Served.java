package io.monitorbackbone.conform;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which normative schema each object in an answer must satisfy (C29, applied to every answer): errors, and per route the
 * monitors, observations, states, subscriptions and leases it serves. Filters are checked inside monitors and
 * subscriptions, through their schemas.
 */
final class Served {
    private static final Pattern MONITOR = Pattern.compile("^/monitors/[^/]+$");
    private static final Pattern CONFIGURE = Pattern.compile("^/monitors/[^/]+/(update|pause|resume|retire)$");
    private static final Pattern STATE = Pattern.compile("^/monitors/[^/]+/state$");
    private static final Pattern PUBLISH = Pattern.compile("^/monitors/[^/]+/observations$");
    private static final Pattern PULL = Pattern.compile("^/subscriptions/[^/]+/pull$");
    private static final Pattern RENEW = Pattern.compile("^/subscriptions/[^/]+/renew$");
    private static final Pattern LEASE = Pattern.compile("^/subscriptions/[^/]+/leases/(claim|renew)$");

    /** A JSON pointer into the answer and the schema the object there must satisfy; "/*" means every array element. */
    record Part(String pointer, String schema) {}

    private Served() {}

    /** {@code path} is relative to {@code /mp/v0} and without its query. */
    static List<Part> parts(String method, String path, int status) {
        List<Part> parts = new ArrayList<>();
        if (status >= 400) {
            parts.add(new Part("", "error"));
            return parts;
        }
        if (status < 200 || status > 299) {
            return parts;
        }
        boolean get = method.equals("GET");
        boolean post = method.equals("POST");
        if (post && path.equals("/monitors")) {
            parts.add(new Part("/monitor", "monitor"));
        } else if (get && path.equals("/monitors")) {
            parts.add(new Part("/monitors/*", "monitor"));
        } else if (get && MONITOR.matcher(path).matches()) {
            parts.add(new Part("", "monitor"));
        } else if (post && CONFIGURE.matcher(path).matches()) {
            parts.add(new Part("/monitor", "monitor"));
        } else if (get && STATE.matcher(path).matches()) {
            parts.add(new Part("", "state"));
        } else if (post && PUBLISH.matcher(path).matches()) {
            parts.add(new Part("/observation", "observation"));
        } else if (post && path.equals("/subscriptions")) {
            parts.add(new Part("/subscription", "subscription"));
        } else if (get && PULL.matcher(path).matches()) {
            parts.add(new Part("/observations/*", "observation"));
        } else if (post && RENEW.matcher(path).matches()) {
            parts.add(new Part("/subscription", "subscription"));
        } else if (post && LEASE.matcher(path).matches()) {
            parts.add(new Part("/lease", "lease"));
        }
        return parts;
    }

    /** The objects at {@code pointer}: none when it names nothing (the caller reports that as a violation). */
    static List<JsonNode> at(JsonNode json, String pointer) {
        if (pointer.endsWith("/*")) {
            JsonNode array = json.at(pointer.substring(0, pointer.length() - 2));
            List<JsonNode> out = new ArrayList<>();
            if (array.isArray()) {
                array.forEach(out::add);
                return out;
            }
            return null;
        }
        JsonNode node = pointer.isEmpty() ? json : json.at(pointer);
        return node.isMissingNode() ? null : List.of(node);
    }
}
