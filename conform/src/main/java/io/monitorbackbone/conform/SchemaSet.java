package io.monitorbackbone.conform;

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

/** The protocol's normative schemas (shipped in the protocol module's resources), loaded once. */
final class SchemaSet {
    // The schemas refer to each other by these ids; the files are on the classpath, not fetched from the web.
    private static final String ID_PREFIX = "https://mentu.ai/schemas/monitor-protocol/0.1/";
    private static final String CLASSPATH_DIR = "mp/schemas/";

    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(
            SpecVersion.VersionFlag.V202012,
            builder -> builder.schemaMappers(mappers -> mappers.mapPrefix(ID_PREFIX, "classpath:" + CLASSPATH_DIR)));
    // Draft 2020-12 treats "format" as an annotation; a served timestamp must really be a date-time.
    private static final SchemaValidatorsConfig CONFIG =
            SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
    private static final Map<String, JsonSchema> CACHE = new ConcurrentHashMap<>();

    private SchemaSet() {}

    /** Null when {@code node} is a valid {@code name} ("monitor", "observation", ...), else what is wrong, on one line. */
    static String violations(String name, JsonNode node) {
        Set<ValidationMessage> messages =
                CACHE.computeIfAbsent(name, SchemaSet::load).validate(node);
        if (messages.isEmpty()) {
            return null;
        }
        return messages.stream().map(ValidationMessage::getMessage).sorted().collect(Collectors.joining("; "));
    }

    private static JsonSchema load(String name) {
        String resource = CLASSPATH_DIR + name + ".json";
        if (SchemaSet.class.getClassLoader().getResource(resource) == null) {
            throw new IllegalStateException(
                    "no schema " + resource + " on the classpath (it comes with the protocol module)");
        }
        return FACTORY.getSchema(SchemaLocation.of(ID_PREFIX + name + ".json"), CONFIG);
    }
}
