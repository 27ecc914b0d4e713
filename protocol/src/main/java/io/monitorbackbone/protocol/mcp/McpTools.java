package io.monitorbackbone.protocol.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Vocabulary;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The MCP tools as data: name, description and input schema, written for a model reading a tool list, and how a
 * call's arguments become a JSON-RPC method call of the protocol ({@code monitors/*}, {@code feeds/*},
 * {@code leases/*}). Nothing here knows Quarkus or Kafka: the gateway's {@code /mcp} runs the call against its
 * services, and {@code mp mcp} (the cli's stdio server) sends the same call to a server's {@code POST /mp/v0/rpc}, so
 * both list exactly these tools.
 */
public final class McpTools {
    /** MCP clients give up on a request after about a minute; a long-poll must answer well before. */
    public static final int MAX_WAIT_SECONDS = 25;

    private static final String TOKEN = "token";

    /** What a tool call becomes: a protocol method, its params, and the bearer token it carries (may be null). */
    public record Call(String method, ObjectNode params, String bearer) {}

    /** How a tool's arguments become its call; a bad argument is a protocol refusal. */
    @FunctionalInterface
    public interface Mapping {
        Call map(ObjectNode args, String token);
    }

    public record Tool(
            String name,
            String title,
            String description,
            ObjectNode inputSchema,
            boolean readOnly,
            boolean destructive,
            boolean idempotent,
            Mapping mapping) {

        /**
         * The call these arguments make. {@code fallbackToken} (e.g. the bearer of the MCP session's HTTP request) is
         * used when the arguments carry no {@code token}.
         */
        public Call call(JsonNode arguments, String fallbackToken) {
            ObjectNode args = checked(arguments, fallbackToken != null);
            String token = args.path(TOKEN).isTextual() ? args.get(TOKEN).asText() : fallbackToken;
            args.remove(TOKEN);
            return mapping.map(args, token);
        }

        private ObjectNode checked(JsonNode arguments, boolean haveFallbackToken) {
            if (arguments != null && !arguments.isNull() && !arguments.isObject()) {
                throw ProtocolException.of(ErrorCode.INVALID, "the arguments of " + name + " must be an object");
            }
            ObjectNode args =
                    arguments == null || arguments.isNull() ? Json.object() : ((ObjectNode) arguments).deepCopy();
            JsonNode properties = inputSchema.path("properties");
            List<String> unknown = new ArrayList<>();
            args.fieldNames().forEachRemaining(k -> {
                if (!properties.has(k)) {
                    unknown.add(k);
                }
            });
            if (!unknown.isEmpty()) {
                List<String> known = new ArrayList<>();
                properties.fieldNames().forEachRemaining(known::add);
                throw ProtocolException.of(
                                ErrorCode.INVALID,
                                name + " does not take " + String.join(", ", unknown) + "; it takes "
                                        + String.join(", ", known))
                        .with("unknown", unknown)
                        .with("known", known);
            }
            List<String> missing = new ArrayList<>();
            inputSchema.path("required").forEach(r -> {
                if (!args.hasNonNull(r.asText()) && !(r.asText().equals(TOKEN) && haveFallbackToken)) {
                    missing.add(r.asText());
                }
            });
            if (!missing.isEmpty()) {
                throw ProtocolException.of(ErrorCode.INVALID, name + " needs " + String.join(", ", missing))
                        .with("missing", missing);
            }
            return args;
        }
    }

    private static final List<Tool> TOOLS = List.of(
            tool(
                    "monitor_discover",
                    "Discover the server",
                    "What this Monitor Protocol server supports: protocol version, capabilities and limits (max page "
                            + "size, longest wait, lease durations). No token needed.",
                    schema(),
                    true,
                    false,
                    true,
                    (a, t) -> new Call("monitors/discover", a, null)),
            tool(
                    "monitor_list",
                    "List monitors",
                    "The monitors you may see: every public monitor, plus a private or shared one when `token` is its "
                            + "owner token (or a shared monitor's subscribe token). Each entry is a monitor definition "
                            + "with its `head` (last seq).",
                    schema().prop(
                                    TOKEN,
                                    string("Optional. An owner token or subscribe token; shows that monitor too "
                                            + "when it is private or shared.")),
                    true,
                    false,
                    true,
                    (a, t) -> new Call("monitors/list", a, t)),
            tool(
                    "monitor_get",
                    "Get a monitor's definition",
                    "One monitor's definition: name, owner, types, visibility, capabilities, limits and `head`. "
                            + "A private monitor needs its owner token, a shared one its owner or subscribe token; "
                            + "without it the answer is NOT_FOUND.",
                    schema().prop("monitor", monitorId())
                            .prop(TOKEN, visibilityToken())
                            .require("monitor"),
                    true,
                    false,
                    true,
                    (a, t) -> new Call("monitors/get", renamed(a, "monitor", "id"), t)),
            tool(
                    "monitor_create",
                    "Create a monitor",
                    "Creates a monitor: a durable, shareable log of observations with a computed state. The answer "
                            + "holds `owner_token` (and `subscribe_token` for a shared monitor), SHOWN ONCE: keep it, "
                            + "it is needed to publish, configure, and read a private monitor. Only `id` is required; "
                            + "`visibility` defaults to private.",
                    schema().prop(
                                    "id",
                                    string("The monitor's id, fixed forever: 2-64 characters of letters, digits, "
                                                    + "'_', '.', '-', not dots only.")
                                            .put("pattern", Vocabulary.MONITOR_ID.pattern()))
                            .prop("name", string("A human-readable name; defaults to the id."))
                            .prop("description", string("What this monitor watches and why."))
                            .prop(
                                    "owner",
                                    string(
                                            "The owner as an actor, e.g. agent:claude or human:ana; a human: "
                                                    + "owner may publish human-certified observations. Defaults to agent:owner."))
                            .prop(
                                    "visibility",
                                    enumOf(
                                            "Who may see it: private (owner token only, the default), "
                                                    + "shared (owner or subscribe token), public (anyone).",
                                            Vocabulary.VISIBILITIES))
                            .prop(
                                    "types",
                                    strings("The reverse-DNS observation types it emits, e.g. "
                                            + "[\"com.example.ci.run\"]; subscription filters may name only these."))
                            .prop(
                                    "capabilities",
                                    enumArray(
                                            "What subscribers may be granted: observe (read), react, "
                                                    + "act (claim leases on subjects). Defaults to [observe].",
                                            Vocabulary.CAPABILITIES))
                            .prop(
                                    "default_grant",
                                    enumArray(
                                            "What a subscriber without a token gets; a subset of "
                                                    + "capabilities. Defaults to [observe].",
                                            Vocabulary.CAPABILITIES))
                            .prop(
                                    "horizon",
                                    enumOf(
                                            "How far ahead its observations matter: event (default), minute, "
                                                    + "hour, day, week, month.",
                                            Vocabulary.HORIZONS))
                            .prop(
                                    "source",
                                    object("Where observations come from: {kind, ref, settings}; kind is one of "
                                            + String.join(", ", Vocabulary.SOURCE_KINDS)
                                            + ". Defaults to {kind: log}."))
                            .prop(
                                    "filter",
                                    object(
                                            "A filter every subscription of this monitor gets (keys: types, "
                                                    + "sources, subjects, actors, tiers, origins, horizons, since, until, text, #tag)."))
                            .prop(
                                    "rules",
                                    array("Mechanical rules reacting to observations (log, annotate, label, "
                                            + "escalate:<subject>, run:<ref>, notify:human). Optional."))
                            .prop("ttl_seconds", integer("How long its state stays fresh. Optional."))
                            .prop(
                                    "retire_after_mute_seconds",
                                    integer("Subscriptions that do not pull for this long "
                                            + "are retired (default 7 days)."))
                            .prop("cadence", object("How often its source is expected to report. Optional."))
                            .prop("budget", object("A budget for its source. Optional."))
                            .prop(
                                    "limits",
                                    object("{retention_seconds, delivery_count_limit}: how long the log keeps "
                                            + "observations (default forever) and after how many lease rejections a subject is "
                                            + "dead-lettered (default 5)."))
                            .prop("subscribe_token", bool("Mint a subscribe token even when not shared."))
                            .prop(
                                    TOKEN,
                                    string("The server's registration token, only when the server requires one "
                                            + "to create monitors (such monitors are attested)."))
                            .require("id"),
                    false,
                    false,
                    false,
                    (a, t) -> {
                        if (t != null) {
                            a.put("registration_token", t);
                        }
                        return new Call("monitors/create", a, null);
                    }),
            tool(
                    "monitor_configure",
                    "Update, pause, resume or retire a monitor",
                    "Changes a monitor; owner token required. action=update applies `patch` (fields: name, "
                            + "description, source, filter, horizon, visibility, default_grant, cadence, ttl_seconds, "
                            + "retire_after_mute_seconds, budget, rules, types, limits); pause refuses publishes until "
                            + "resume; retire is final and releases its leases. Every change is logged as an "
                            + "ai.mentu.monitor.configured observation.",
                    schema().prop("monitor", monitorId())
                            .prop(
                                    "action",
                                    enumOf(
                                            "update, pause, resume or retire.",
                                            List.of("update", "pause", "resume", "retire")))
                            .prop("patch", object("For action=update: the fields to change and their new values."))
                            .prop("reason", string("Why; recorded in the configured observation."))
                            .prop("rule", string("The rule or policy behind the change, if any; recorded."))
                            .prop(TOKEN, ownerToken())
                            .require("monitor", "action", TOKEN),
                    false,
                    true,
                    false,
                    (a, t) -> {
                        String action = a.path("action").asText();
                        if (!List.of("update", "pause", "resume", "retire").contains(action)) {
                            throw ProtocolException.of(
                                            ErrorCode.UNKNOWN_VOCABULARY,
                                            "action must be one of update, pause, resume, retire")
                                    .with("invalid", List.of("action:" + action));
                        }
                        a.remove("action");
                        return new Call("monitors/" + action, renamed(a, "monitor", "id"), t);
                    }),
            tool(
                    "monitor_publish",
                    "Publish an observation",
                    "Appends one observation to a monitor's log; owner token required. The answer is the stored "
                            + "CloudEvent and its `seq`. Provenance is checked: an agent cannot claim a person's "
                            + "certainty (tier src, origin human, verification human_verified/certified need a human: "
                            + "owner). A refused observation is still recorded as ai.mentu.monitor.rejected.",
                    schema().prop("monitor", monitorId())
                            .prop("type", string("The observation's reverse-DNS type, e.g. com.example.ci.run."))
                            .prop(
                                    "subject",
                                    string("What it is about (a host, a build, a ticket); leases are per "
                                            + "subject."))
                            .prop(
                                    "data",
                                    object("The observation's content, any JSON object; `data.tags` "
                                            + "({name: value}) can be filtered with #name."))
                            .prop("actor", string("Who saw it, e.g. probe:ci or agent:claude; defaults to the owner."))
                            .prop(
                                    "origin",
                                    enumOf(
                                            "How it was obtained; sets the default tier and verification.",
                                            Vocabulary.ORIGINS))
                            .prop(
                                    "tier",
                                    enumOf(
                                            "How much it can be believed: src (only asserted explicitly, never by "
                                                    + "an agent), measured, derived, unverified, falsified.",
                                            Vocabulary.TIERS))
                            .prop("verification", enumOf("Who checked it.", Vocabulary.VERIFICATIONS))
                            .prop(
                                    "on_behalf_of",
                                    string("The monitor's owner, when an actor of another kind publishes "
                                            + "for them."))
                            .prop("source_ref", string("A reference into the source (URL, file, id)."))
                            .prop("time", string("When it happened (RFC 3339); defaults to now."))
                            .prop("supersedes", object("{source, id} of an earlier observation this one corrects."))
                            .prop("wasDerivedFrom", array("Observations this one was derived from, as {source, id}."))
                            .prop(TOKEN, ownerToken())
                            .require("monitor", "type", TOKEN),
                    false,
                    false,
                    false,
                    (a, t) -> new Call("monitors/publish", renamed(a, "monitor", "id"), t)),
            tool(
                    "monitor_state",
                    "Read a monitor's state",
                    "A monitor's computed state: live or paused/retired, head, counters, ages, open contradictions and "
                            + "confidence with the inputs it is missing. Public monitors need no token; private and "
                            + "shared ones need their owner (or subscribe) token.",
                    schema().prop("monitor", monitorId())
                            .prop(TOKEN, visibilityToken())
                            .require("monitor"),
                    true,
                    false,
                    true,
                    (a, t) -> new Call("monitors/state", renamed(a, "monitor", "id"), t)),
            tool(
                    "monitor_subscribe",
                    "Subscribe to a monitor",
                    "Creates a subscription: a durable cursor over the monitor's log. The answer holds the "
                            + "subscription (its `id`) and its `token`, SHOWN ONCE: pull, ack, seek and leases need "
                            + "both. Subscribing again under the same subscriber re-keys that subscription (same id and "
                            + "cursor, new token) and needs its current token or the owner token.",
                    schema().prop("monitor", monitorId())
                            .prop("subscriber", string("Who reads, as an actor, e.g. agent:claude."))
                            .prop(
                                    "capabilities",
                                    enumArray(
                                            "What you ask for: observe, react, act (act is needed to "
                                                    + "claim leases). You get at most the monitor's default_grant unless token is the "
                                                    + "owner or subscribe token.",
                                            Vocabulary.CAPABILITIES))
                            .prop(
                                    "filter",
                                    object("Which observations to receive (keys: types, sources, subjects, "
                                            + "actors, tiers, origins, horizons, since, until, text, #tag; values are lists, "
                                            + "a type may end in *)."))
                            .prop(
                                    "from",
                                    startPosition("Where to start: \"head\" (only what comes next, the "
                                            + "default), \"earliest\" (everything the log still holds), a seq, or "
                                            + "{\"time\": \"2026-12-01T19:30:00Z\"} (the first observation appended "
                                            + "at or after that RFC 3339 time)."))
                            .prop(
                                    "reset_policy",
                                    enumOf(
                                            "What to do if the cursor falls below the retention floor.",
                                            List.of("none", "earliest", "latest")))
                            .prop(
                                    "retire_after_mute_seconds",
                                    integer("Retire this subscription after this long " + "without a pull."))
                            .prop(
                                    TOKEN,
                                    string("Optional: the owner token or a shared monitor's subscribe token (needed "
                                            + "for private and shared monitors, and to be granted more than default_grant), or "
                                            + "this subscriber's current subscription token when re-keying."))
                            .require("monitor", "subscriber"),
                    false,
                    false,
                    false,
                    (a, t) -> new Call("feeds/subscribe", a, t)),
            tool(
                    "monitor_pull",
                    "Pull observations",
                    "Reads observations from the subscription's cursor, oldest first, as CloudEvents with `seq`. "
                            + "A pull never moves the cursor: pulling again returns the same observations until you "
                            + "call monitor_ack with the `next` value from the answer. With `wait`, the call waits up "
                            + "to that many seconds (at most " + MAX_WAIT_SECONDS + ") for something new.",
                    schema().prop("subscription", subscriptionId())
                            .prop("limit", integer("At most this many observations (default 50, at most 200)."))
                            .prop(
                                    "wait",
                                    integer("Seconds to wait when nothing is pending (0 to " + MAX_WAIT_SECONDS
                                            + "; default 0)."))
                            .prop(
                                    "cursor",
                                    integer("Replay from this seq instead of the committed cursor (nothing is "
                                            + "moved)."))
                            .prop(
                                    "filter",
                                    object("Narrow this pull further (same keys as a subscription filter); it "
                                            + "can never widen the subscription's filter."))
                            .prop(TOKEN, subscriptionToken())
                            .require("subscription", TOKEN),
                    false,
                    false,
                    true,
                    (a, t) -> new Call("feeds/pull", pullParams(a), t)),
            tool(
                    "monitor_ack",
                    "Acknowledge observations",
                    "Moves the subscription's cursor forward to `cursor` (pass the `next` value a pull returned): "
                            + "everything below it counts as handled and is not delivered again. Never moves backwards "
                            + "(CURSOR_BACKWARDS); acking the same cursor twice is harmless.",
                    schema().prop("subscription", subscriptionId())
                            .prop("cursor", integer("The next seq to deliver, normally a pull's `next`."))
                            .prop(TOKEN, subscriptionToken())
                            .require("subscription", "cursor", TOKEN),
                    false,
                    false,
                    true,
                    (a, t) -> new Call("feeds/ack", a, t)),
            tool(
                    "feed_seek",
                    "Move a subscription's cursor anywhere",
                    "Sets the subscription's cursor to `cursor`, or to the first observation appended at or after "
                            + "`time` (give one of the two), backwards too (to re-read), with a reason that is "
                            + "logged as an ai.mentu.monitor.subscribed observation.",
                    schema().prop("subscription", subscriptionId())
                            .prop("cursor", integer("The seq to deliver next."))
                            .prop(
                                    "time",
                                    string("Instead of cursor: an RFC 3339 time, e.g. 2026-12-01T19:30:00Z; the "
                                            + "cursor goes to the first observation appended at or after it."))
                            .prop("reason", string("Why you move it; logged."))
                            .prop(TOKEN, subscriptionToken())
                            .require("subscription", "reason", TOKEN),
                    false,
                    false,
                    true,
                    (a, t) -> new Call("feeds/seek", a, t)),
            tool(
                    "feed_retire",
                    "Retire a subscription",
                    "Ends a subscription: it releases its leases and is logged as "
                            + "ai.mentu.monitor.subscription_retired. Subscribing again under the same subscriber "
                            + "brings it back with its cursor.",
                    schema().prop("subscription", subscriptionId())
                            .prop("reason", string("Why; logged."))
                            .prop(TOKEN, subscriptionToken())
                            .require("subscription", TOKEN),
                    false,
                    true,
                    true,
                    (a, t) -> new Call("feeds/retire", a, t)),
            lease(
                    "lease_claim",
                    "Claim a subject",
                    "Claims a lease on one subject the monitor has published, so no one else works on it meanwhile. "
                            + "Needs a subscription with the act capability. Claiming again what you hold returns the "
                            + "same lease (idempotent: true); a subject someone else holds gives LEASE_HELD naming the "
                            + "holder. Complete, release or renew it before lease_duration_seconds run out.",
                    schema().prop(
                                    "lease_duration_seconds",
                                    integer("How long the lease lasts unless renewed (default " + "900)."))
                            .prop("note", string("A note recorded with the lease.")),
                    false),
            lease(
                    "lease_renew",
                    "Renew a lease",
                    "Extends a lease you hold by lease_duration_seconds from now; LEASE_LOST if it expired and "
                            + "someone else took it.",
                    schema().prop("lease_duration_seconds", integer("The new duration from now (default 900).")),
                    true),
            lease(
                    "lease_complete",
                    "Complete a lease",
                    "Marks the work on a subject done and frees the subject; LEASE_LOST if you no longer hold it.",
                    schema().prop("outcome", string("What came of the work."))
                            .prop("evidence", object("Evidence for the outcome, any JSON object."))
                            .prop("note", string("A note recorded with the outcome.")),
                    true),
            lease(
                    "lease_release",
                    "Release a lease",
                    "Gives a subject back without completing it, so someone else can claim it.",
                    schema().prop("reason", string("Why; logged.")),
                    true),
            lease(
                    "lease_reject",
                    "Reject a subject",
                    "Gives a subject back as not workable; after the monitor's delivery_count_limit rejections the "
                            + "subject is dead-lettered and every later claim gets DEAD_LETTERED.",
                    schema().prop("reason", string("Why; logged.")),
                    false));

    private static final Map<String, Tool> BY_NAME = index();

    private McpTools() {}

    public static List<Tool> all() {
        return TOOLS;
    }

    public static Tool named(String name) {
        return BY_NAME.get(name);
    }

    private static Map<String, Tool> index() {
        Map<String, Tool> m = new LinkedHashMap<>();
        TOOLS.forEach(t -> m.put(t.name(), t));
        return Map.copyOf(m);
    }

    private static Tool tool(
            String name,
            String title,
            String description,
            Schema schema,
            boolean readOnly,
            boolean destructive,
            boolean idempotent,
            Mapping mapping) {
        return new Tool(name, title, description, schema.node, readOnly, destructive, idempotent, mapping);
    }

    private static Tool lease(String name, String title, String description, Schema extra, boolean idempotent) {
        Schema schema = schema().prop("subscription", subscriptionId())
                .prop("subject", string("The subject, as the monitor published it in an observation's `subject`."));
        extra.node
                .path("properties")
                .fields()
                .forEachRemaining(e -> schema.properties().set(e.getKey(), e.getValue()));
        schema.prop(TOKEN, subscriptionToken()).require("subscription", "subject", TOKEN);
        String action = name.substring("lease_".length());
        return new Tool(
                name,
                title,
                description,
                schema.node,
                false,
                false,
                idempotent,
                (a, t) -> new Call("leases/" + action, a, t));
    }

    private static ObjectNode renamed(ObjectNode args, String from, String to) {
        JsonNode v = args.remove(from);
        if (v != null) {
            args.set(to, v);
        }
        return args;
    }

    /** A pull's arguments as the flat params {@code feeds/pull} takes (REST's query string); the wait is capped. */
    private static ObjectNode pullParams(ObjectNode args) {
        JsonNode filter = args.remove("filter");
        if (filter != null && !filter.isNull()) {
            if (!filter.isObject()) {
                throw ProtocolException.of(ErrorCode.INVALID_FILTER, "filter must be an object of filter keys");
            }
            Set<String> taken = Set.of("subscription", "limit", "wait", "cursor");
            for (Iterator<Map.Entry<String, JsonNode>> it = filter.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (taken.contains(e.getKey())) {
                    throw ProtocolException.of(ErrorCode.INVALID_FILTER, "unknown filter key " + e.getKey())
                            .with("key", e.getKey());
                }
                args.set(e.getKey(), e.getValue());
            }
        }
        JsonNode wait = args.get("wait");
        if (wait != null && wait.isNumber() && wait.asDouble() > MAX_WAIT_SECONDS) {
            args.put("wait", MAX_WAIT_SECONDS);
        }
        return args;
    }

    // ---- schema vocabulary, so each tool above reads as a list of documented arguments ----

    private static final class Schema {
        final ObjectNode node = Json.object();

        Schema() {
            node.put("type", "object");
            node.putObject("properties");
            node.put("additionalProperties", false);
        }

        ObjectNode properties() {
            return (ObjectNode) node.get("properties");
        }

        Schema prop(String name, ObjectNode property) {
            properties().set(name, property);
            return this;
        }

        Schema require(String... names) {
            ArrayNode required = node.putArray("required");
            for (String n : names) {
                required.add(n);
            }
            return this;
        }
    }

    private static Schema schema() {
        return new Schema();
    }

    private static ObjectNode typed(String type, String description) {
        ObjectNode p = Json.object();
        p.put("type", type);
        p.put("description", description);
        return p;
    }

    private static ObjectNode string(String description) {
        return typed("string", description);
    }

    private static ObjectNode integer(String description) {
        ObjectNode p = typed("integer", description);
        p.put("minimum", 0);
        return p;
    }

    /** A subscription's {@code from}: a string, a seq, or {@code {time}}. */
    private static ObjectNode startPosition(String description) {
        ObjectNode p = Json.object();
        p.putArray("type").add("string").add("integer").add("object");
        p.put("description", description);
        return p;
    }

    private static ObjectNode bool(String description) {
        return typed("boolean", description);
    }

    private static ObjectNode object(String description) {
        return typed("object", description);
    }

    private static ObjectNode array(String description) {
        return typed("array", description);
    }

    private static ObjectNode strings(String description) {
        ObjectNode p = typed("array", description);
        p.putObject("items").put("type", "string");
        return p;
    }

    private static ObjectNode enumOf(String description, List<String> values) {
        ObjectNode p = string(description);
        values.forEach(p.putArray("enum")::add);
        return p;
    }

    private static ObjectNode enumArray(String description, List<String> values) {
        ObjectNode p = typed("array", description);
        values.forEach(p.putObject("items").put("type", "string").putArray("enum")::add);
        return p;
    }

    private static ObjectNode monitorId() {
        return string("The monitor's id.");
    }

    private static ObjectNode subscriptionId() {
        return string("The subscription's id (subscription.id from monitor_subscribe).");
    }

    private static ObjectNode ownerToken() {
        return string("The monitor's owner token (owner_token from monitor_create).");
    }

    private static ObjectNode subscriptionToken() {
        return string("The subscription's token (token from monitor_subscribe; it changes when re-keyed).");
    }

    private static ObjectNode visibilityToken() {
        return string(
                "Needed only for a private monitor (its owner token) or a shared one (owner or subscribe token).");
    }
}
