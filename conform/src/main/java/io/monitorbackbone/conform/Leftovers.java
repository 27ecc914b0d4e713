package io.monitorbackbone.conform;

import static io.monitorbackbone.conform.J.o;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a run created on the server, so that it can retire it again: every monitor and subscription a 201 answered (with
 * the latest token it was given: renew and re-subscribe rotate them), less what a check retired itself. {@link Wire}
 * reports every answer here, so no check can create something that escapes it. Retiring is all the protocol offers: the
 * logs stay on the server.
 */
final class Leftovers {
    private static final Pattern RENEW = Pattern.compile("^/mp/v0/subscriptions/([^/?]+)/renew$");
    private static final Pattern SUBSCRIPTION_RETIRE = Pattern.compile("^/mp/v0/subscriptions/([^/?]+)/retire$");
    private static final Pattern MONITOR_RETIRE = Pattern.compile("^/mp/v0/monitors/([^/?]+)/retire$");

    /** Id to its latest token; removed once retired. */
    private final Map<String, String> monitors = new LinkedHashMap<>();

    private final Map<String, String> subscriptions = new LinkedHashMap<>();
    private int monitorsRetired;
    private int subscriptionsRetired;
    private final List<String> notRetired = new ArrayList<>();

    /** What retiring came to over a whole run. */
    record Outcome(int monitors, int subscriptions, List<String> notRetired) {

        /** The closing line of a run. */
        String line() {
            String retired = "cleanup: retired the " + monitors + " monitor" + (monitors == 1 ? "" : "s") + " and "
                    + subscriptions
                    + " subscription" + (subscriptions == 1 ? "" : "s")
                    + " this run created (their logs stay on the server, as"
                    + " retirement keeps them)";
            return notRetired.isEmpty()
                    ? retired
                    : retired + "; could not retire " + notRetired.size() + ": " + String.join("; ", notRetired);
        }
    }

    /** Called by {@link Wire} with every answer, before any check sees it. */
    synchronized void saw(Wire.Reply r, String requestBody) {
        if (!"POST".equals(r.method()) || r.json() == null) {
            return;
        }
        String path = r.path();
        int q = path.indexOf('?');
        if (q >= 0) {
            path = path.substring(0, q);
        }
        Matcher m;
        if (r.status() == 201 && path.equals(Wire.BASE_PATH + "/monitors")) {
            String id = text(r.json().at("/monitor/id"));
            if (id == null) {
                id = text(parse(requestBody).path("id"));
            }
            String token = text(r.json().path("owner_token"));
            if (id != null) {
                monitors.put(id, token);
            }
        } else if (r.status() == 201 && path.equals(Wire.BASE_PATH + "/subscriptions")) {
            String id = text(r.json().at("/subscription/id"));
            String token = text(r.json().path("token"));
            if (id != null) {
                if (token != null || !subscriptions.containsKey(id)) {
                    subscriptions.put(id, token);
                }
            }
        } else if (r.status() == 200 && (m = RENEW.matcher(path)).matches()) {
            String token = text(r.json().path("token"));
            if (token != null && subscriptions.containsKey(m.group(1))) {
                subscriptions.put(m.group(1), token);
            }
        } else if (r.status() == 200 && (m = SUBSCRIPTION_RETIRE.matcher(path)).matches()) {
            subscriptions.remove(m.group(1));
        } else if (r.status() == 200 && (m = MONITOR_RETIRE.matcher(path)).matches()) {
            monitors.remove(m.group(1));
        }
    }

    /**
     * Retires what is still active, subscriptions first, then monitors, each with the token it was created (or last
     * re-keyed) with. Something already gone (a subscription the mute sweep retired) counts as retired; a refusal is
     * remembered with its answer. Never throws.
     */
    void retire(Wire wire) {
        Map<String, String> subs;
        Map<String, String> mons;
        synchronized (this) {
            subs = new LinkedHashMap<>(subscriptions);
            mons = new LinkedHashMap<>(monitors);
        }
        subs.forEach((id, token) -> {
            String failure = attempt(wire, "/subscriptions/" + id + "/retire", token, "subscription " + id);
            synchronized (this) {
                subscriptions.remove(id);
                if (failure == null) {
                    subscriptionsRetired++;
                } else {
                    notRetired.add(failure);
                }
            }
        });
        mons.forEach((id, token) -> {
            String failure = attempt(wire, "/monitors/" + id + "/retire", token, "monitor " + id);
            synchronized (this) {
                monitors.remove(id);
                if (failure == null) {
                    monitorsRetired++;
                } else {
                    notRetired.add(failure);
                }
            }
        });
    }

    /** Null when retired (or already retired); otherwise why not. */
    private static String attempt(Wire wire, String path, String token, String what) {
        if (token == null) {
            return what + ": no token was given for it";
        }
        try {
            Wire.Reply r = wire.post(path, o("reason", "conformance run finished"), token);
            if (r.status() == 200
                    || r.status() == 404
                            && r.json() != null
                            && r.json().path("retired").asBoolean(false)) {
                return null;
            }
            return what + ": " + r.describe();
        } catch (RuntimeException e) {
            return what + ": " + e.getMessage();
        }
    }

    synchronized Outcome outcome() {
        return new Outcome(monitorsRetired, subscriptionsRetired, List.copyOf(notRetired));
    }

    private static JsonNode parse(String body) {
        if (body == null) {
            return J.o();
        }
        try {
            return Wire.JSON.readTree(body);
        } catch (Exception e) {
            return J.o();
        }
    }

    private static String text(JsonNode n) {
        return n != null && n.isTextual() ? n.asText() : null;
    }
}
