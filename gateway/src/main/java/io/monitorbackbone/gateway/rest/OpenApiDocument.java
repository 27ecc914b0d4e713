package io.monitorbackbone.gateway.rest;

import com.fasterxml.jackson.core.type.TypeReference;
import io.monitorbackbone.protocol.Json;
import io.quarkus.smallrye.openapi.OpenApiFilter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.MediaType;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;

/**
 * Completes the OpenAPI document generated from the resources (served at {@code GET /mp/v0/openapi.json}, built once
 * with the application): the protocol's JSON schemas as component schemas, every request body as JSON (the protocol
 * reads bodies as JSON whatever their Content-Type), the protocol error body as every operation's refusal, and the SSE
 * stream, which is a Vert.x route (ADR 0012) the generator does not see.
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.BUILD)
public class OpenApiDocument implements OASFilter {
    /** The protocol's schemas, as the protocol module vendors them under {@code mp/schemas/}. */
    static final List<String> SCHEMAS =
            List.of("error", "filter", "lease", "monitor", "observation", "state", "subscription");

    private static final String ID_PREFIX = "https://mentu.ai/schemas/monitor-protocol/0.1/";
    static final String STREAM = Answers.BASE + "/subscriptions/{id}/stream";

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Components components = openAPI.getComponents();
        if (components == null) {
            components = OASFactory.createComponents();
            openAPI.setComponents(components);
        }
        for (String name : SCHEMAS) {
            Schema schema = OASFactory.createSchema();
            schema.setAll(componentOf(read(name)));
            components.addSchema(name, schema);
        }
        openAPI.getPaths().addPathItem(STREAM, OASFactory.createPathItem().GET(stream()));
        for (PathItem item : openAPI.getPaths().getPathItems().values()) {
            for (Operation operation : item.getOperations().values()) {
                if (operation.getRequestBody() != null) {
                    operation.getRequestBody().setContent(json(OASFactory.createSchema()));
                    operation.getRequestBody().setRequired(null);
                }
                operation
                        .getResponses()
                        .addAPIResponse(
                                "default",
                                OASFactory.createAPIResponse()
                                        .description(
                                                "A refusal: the protocol error body, under the status its code names")
                                        .content(json(OASFactory.createSchema().ref("error"))));
            }
        }
    }

    private static Operation stream() {
        return OASFactory.createOperation()
                .summary(
                        "Server-Sent Events of the subscription's feed: id: <seq>, event: observation | heartbeat | error")
                .addTag("Subscriptions Resource")
                .addParameter(OASFactory.createParameter()
                        .name("id")
                        .in(Parameter.In.PATH)
                        .required(true)
                        .schema(OASFactory.createSchema().addType(Schema.SchemaType.STRING)))
                .addParameter(OASFactory.createParameter()
                        .name("cursor")
                        .in(Parameter.In.QUERY)
                        .schema(OASFactory.createSchema().addType(Schema.SchemaType.INTEGER)))
                .addParameter(OASFactory.createParameter()
                        .name("Last-Event-ID")
                        .in(Parameter.In.HEADER)
                        .schema(OASFactory.createSchema().addType(Schema.SchemaType.STRING)))
                .responses(OASFactory.createAPIResponses()
                        .addAPIResponse(
                                "200",
                                OASFactory.createAPIResponse()
                                        .description("The stream; it never moves the cursor")
                                        .content(OASFactory.createContent()
                                                .addMediaType(
                                                        "text/event-stream",
                                                        OASFactory.createMediaType()
                                                                .schema(OASFactory.createSchema()
                                                                        .addType(Schema.SchemaType.STRING))))));
    }

    private static Content json(Schema schema) {
        MediaType media = OASFactory.createMediaType().schema(schema);
        return OASFactory.createContent().addMediaType("application/json", media);
    }

    private static Map<String, Object> read(String name) {
        try (InputStream in =
                OpenApiDocument.class.getClassLoader().getResourceAsStream("mp/schemas/" + name + ".json")) {
            if (in == null) {
                throw new IllegalStateException(
                        "the protocol's schema mp/schemas/" + name + ".json is not on the class path");
            }
            return Json.MAPPER.readValue(in, new TypeReference<LinkedHashMap<String, Object>>() {});
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A protocol schema as a component: without {@code $schema} and {@code $id} (an {@code $id} would make the
     * component's references resolve against the schema's own address), its references to the other schemas pointing
     * at their components.
     */
    static Map<String, Object> componentOf(Map<String, Object> schema) {
        Map<String, Object> out = new LinkedHashMap<>(schema);
        out.remove("$schema");
        out.remove("$id");
        return rewritten(out);
    }

    @SuppressWarnings("unchecked")
    private static <T> T rewritten(T node) {
        if (node instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(
                    (String) k,
                    "$ref".equals(k) && v instanceof String ref && ref.startsWith(ID_PREFIX)
                            ? "#/components/schemas/"
                                    + ref.substring(ID_PREFIX.length()).replace(".json", "")
                            : rewritten(v)));
            return (T) out;
        }
        if (node instanceof List<?> list) {
            List<Object> out = new ArrayList<>();
            list.forEach(v -> out.add(rewritten(v)));
            return (T) out;
        }
        return node;
    }
}
