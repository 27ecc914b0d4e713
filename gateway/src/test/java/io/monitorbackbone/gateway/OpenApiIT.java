package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.Http;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /mp/v0/openapi.json} against a real server: an OpenAPI 3.1 document in which every route the server serves
 * is described, every described route answers (a refusal is fine, an unknown route is not), every refusal is the
 * protocol error body, the protocol's JSON schemas are its components, and discover announces it.
 */
class OpenApiIT {
    private static final String PATH = "/mp/v0/openapi.json";
    private static final String SCHEMA_PREFIX = "https://mentu.ai/schemas/monitor-protocol/0.1/";
    /** Every route of the REST binding, as a client calls it. */
    private static final List<String> SERVED = List.of(
            "GET /mp/v0/discover",
            "POST /mp/v0/monitors",
            "GET /mp/v0/monitors",
            "GET /mp/v0/monitors/m-1",
            "POST /mp/v0/monitors/m-1/update",
            "POST /mp/v0/monitors/m-1/pause",
            "POST /mp/v0/monitors/m-1/resume",
            "POST /mp/v0/monitors/m-1/retire",
            "GET /mp/v0/monitors/m-1/state",
            "POST /mp/v0/monitors/m-1/observations",
            "POST /mp/v0/monitors/m-1/observations/batch",
            "POST /mp/v0/subscriptions",
            "GET /mp/v0/subscriptions/sub-1/pull",
            "POST /mp/v0/subscriptions/sub-1/ack",
            "POST /mp/v0/subscriptions/sub-1/seek",
            "POST /mp/v0/subscriptions/sub-1/renew",
            "POST /mp/v0/subscriptions/sub-1/retire",
            "GET /mp/v0/subscriptions/sub-1/stream",
            "POST /mp/v0/subscriptions/sub-1/leases/claim",
            "POST /mp/v0/subscriptions/sub-1/leases/complete",
            "GET /mp/v0/admin/snapshot",
            "GET /mp/v0/admin/bridges",
            "GET /mp/v0/admin/bridges/m-1",
            "POST /mp/v0/admin/compact",
            "POST /mp/v0/rpc");

    private final Http http = SharedServer.http();

    private JsonNode document() {
        Http.Response r = http.get(PATH, null);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json()).as(r.body()).isNotNull();
        return r.json();
    }

    @Test
    void theDocumentIsOpenApi31AndDiscoverAnnouncesIt() {
        assertThat(document().path("openapi").asText()).startsWith("3.1.");
        JsonNode announced =
                http.get("/mp/v0/discover", null).json().at("/capabilities/extensions/io.monitorbackbone~1openapi");
        assertThat(announced.path("path").asText()).isEqualTo(PATH);
        assertThat(announced.path("version").asText()).startsWith("3.1.");
    }

    @Test
    void everyServedRouteIsDocumented() {
        List<Operation> documented = operations(document());
        for (String route : SERVED) {
            String method = route.substring(0, route.indexOf(' '));
            String path = route.substring(route.indexOf(' ') + 1);
            assertThat(documented)
                    .as(route + " is in the document")
                    .anyMatch(o -> o.method().equals(method)
                            && o.matcher().matcher(path).matches());
        }
    }

    @Test
    void everyDocumentedRouteAnswersAndRefusesWithTheErrorBody() {
        List<Operation> documented = operations(document());
        assertThat(documented).hasSizeGreaterThanOrEqualTo(18);
        for (Operation o : documented) {
            Http.Response r = o.method().equals("POST")
                    ? http.post(o.example(), "{}", "not-a-token")
                    : http.get(o.example(), "not-a-token");
            String what = o.method() + " " + o.example() + ": " + r.status() + " " + r.body();
            assertThat(r.status()).as(what).isLessThan(500);
            if (r.status() >= 400) {
                assertThat(r.json()).as(what).isNotNull();
                assertThat(r.json().path("error").asText()).as(what).doesNotStartWith("unknown route");
                assertThat(r.json().path("code").isTextual()).as(what).isTrue();
                assertThat(r.json().path("done").isArray()).as(what).isTrue();
            }
            assertThat(o.node()
                            .at("/responses/default/content/application~1json/schema/$ref")
                            .asText())
                    .as(what)
                    .isEqualTo("#/components/schemas/error");
        }
    }

    @Test
    void theProtocolsSchemasAreTheComponents() throws IOException {
        JsonNode components = document().at("/components/schemas");
        for (String name : List.of("error", "filter", "lease", "monitor", "observation", "state", "subscription")) {
            JsonNode expected;
            try (InputStream in = getClass().getClassLoader().getResourceAsStream("mp/schemas/" + name + ".json")) {
                assertThat(in).as("the protocol's " + name + ".json").isNotNull();
                expected = asComponent(Json.MAPPER.readTree(in));
            }
            assertThat(components.get(name)).as(name).isEqualTo(expected);
        }
    }

    private record Operation(String method, String template, Pattern matcher, String example, JsonNode node) {}

    /** The document's operations, each with a regular expression of its template and a request path that fills it. */
    private static List<Operation> operations(JsonNode document) {
        List<Operation> out = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields();
        while (paths.hasNext()) {
            Map.Entry<String, JsonNode> path = paths.next();
            Iterator<Map.Entry<String, JsonNode>> methods = path.getValue().fields();
            while (methods.hasNext()) {
                Map.Entry<String, JsonNode> m = methods.next();
                String template = path.getKey();
                String regex = template;
                String example = template;
                for (JsonNode p : m.getValue().path("parameters")) {
                    if (!p.path("in").asText().equals("path")) {
                        continue;
                    }
                    String name = p.path("name").asText();
                    String pattern = p.at("/schema/pattern").asText("");
                    if (p.at("/schema/enum").isArray()) {
                        List<String> values = new ArrayList<>();
                        p.at("/schema/enum").forEach(v -> values.add(v.asText()));
                        pattern = String.join("|", values);
                    }
                    regex = regex.replace("{" + name + "}", pattern.isEmpty() ? "[^/]+" : "(" + pattern + ")");
                    example = example.replace("{" + name + "}", pattern.isEmpty() ? "x-1" : pattern.split("\\|")[0]);
                }
                out.add(new Operation(
                        m.getKey().toUpperCase(java.util.Locale.ROOT),
                        template,
                        Pattern.compile(regex),
                        example,
                        m.getValue()));
            }
        }
        return out;
    }

    /** A protocol schema as an OpenAPI component: no $schema or $id, references to the others pointing at theirs. */
    private static JsonNode asComponent(JsonNode schema) {
        ObjectNode copy = schema.deepCopy();
        copy.remove("$schema");
        copy.remove("$id");
        return rewriteRefs(copy);
    }

    private static JsonNode rewriteRefs(JsonNode node) {
        if (node.isObject()) {
            ObjectNode o = (ObjectNode) node;
            JsonNode ref = o.get("$ref");
            if (ref != null && ref.isTextual() && ref.asText().startsWith(SCHEMA_PREFIX)) {
                o.put(
                        "$ref",
                        "#/components/schemas/"
                                + ref.asText().substring(SCHEMA_PREFIX.length()).replace(".json", ""));
            }
            o.elements().forEachRemaining(OpenApiIT::rewriteRefs);
        } else if (node.isArray()) {
            node.elements().forEachRemaining(OpenApiIT::rewriteRefs);
        }
        return node;
    }
}
