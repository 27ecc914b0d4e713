package io.monitorbackbone.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/** Checks JSON against the protocol's schemas, which the protocol module puts on the classpath. */
public final class Schemas {

    // The schemas refer to each other by these ids; the files are on the classpath, not on the web.
    private static final String ID_PREFIX = "https://mentu.ai/schemas/monitor-protocol/0.1/";
    private static final String CLASSPATH_DIR = "mp/schemas/";

    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(
            SpecVersion.VersionFlag.V202012,
            builder -> builder.schemaMappers(mappers -> mappers.mapPrefix(ID_PREFIX, "classpath:" + CLASSPATH_DIR)));
    // Draft 2020-12 treats "format" as an annotation only; timestamps must really be RFC 3339.
    private static final SchemaValidatorsConfig CONFIG =
            SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
    private static final Map<String, JsonSchema> CACHE = new ConcurrentHashMap<>();

    private Schemas() {}

    /** {@code name} is a schema file without ".json": "error", "observation", ... */
    public static void assertValid(String name, JsonNode node) {
        Set<ValidationMessage> messages =
                CACHE.computeIfAbsent(name, Schemas::load).validate(node);
        if (!messages.isEmpty()) {
            throw new AssertionError(messages.stream()
                    .map(m -> "  " + m.getMessage())
                    .sorted()
                    .collect(
                            Collectors.joining("\n", "not a valid " + name + ":\n", "\nin: " + node.toPrettyString())));
        }
    }

    private static JsonSchema load(String name) {
        String resource = CLASSPATH_DIR + name + ".json";
        if (Schemas.class.getClassLoader().getResource(resource) == null) {
            throw new IllegalArgumentException(
                    "no schema " + resource + " on the classpath (it comes with the protocol module)");
        }
        return FACTORY.getSchema(SchemaLocation.of(ID_PREFIX + name + ".json"), CONFIG);
    }
}
