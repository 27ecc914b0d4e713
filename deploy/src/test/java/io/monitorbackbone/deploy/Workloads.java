package io.monitorbackbone.deploy;

import static io.monitorbackbone.deploy.Manifests.list;
import static io.monitorbackbone.deploy.Manifests.map;
import static io.monitorbackbone.deploy.Manifests.string;

import io.monitorbackbone.binding.KafkaClients;
import io.monitorbackbone.gateway.InstanceId;
import io.monitorbackbone.gateway.Roles;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The processes of the server a deployment runs (a Deployment's or StatefulSet's pods, a compose service), each with
 * the environment it starts with, the image's included, and the check that every variable a role needs is set.
 */
final class Workloads {
    private Workloads() {}

    /** Where a variable's value comes from: a literal (the image, a ConfigMap, the manifest) or a reference. */
    record Value(String literal, String secretName, String secretKey, String fieldPath, String from) {
        static Value literal(String value, String from) {
            return new Value(value, null, null, null, from);
        }
    }

    /** One kind of process: its roles and environment; {@code pod} is its pod spec on Kubernetes, else null. */
    record Workload(String name, String kind, Map<String, Object> pod, Map<String, Value> env) {
        Roles roles() {
            Value v = env.get(Roles.VARIABLE);
            return Roles.parse(v == null ? Roles.ALL : v.literal());
        }

        boolean has(Roles.Role role) {
            return roles().has(role);
        }

        String literal(String variable) {
            Value v = env.get(variable);
            return v == null ? null : v.literal();
        }

        /** The server's container (the one running the image). */
        Map<String, Object> container() {
            return pod == null ? Map.of() : map(list(pod, "containers").get(0));
        }
    }

    static final String IMAGE = "monitor-backbone";

    /** The server's workloads of a kustomization: every Deployment and StatefulSet whose container runs the image. */
    static List<Workload> k8s(List<Map<String, Object>> docs) {
        Map<String, Map<String, Object>> configMaps = new HashMap<>();
        Manifests.ofKind(docs, "ConfigMap").forEach(c -> configMaps.put(Manifests.name(c), map(c, "data")));
        List<Workload> out = new ArrayList<>();
        for (Map<String, Object> doc : docs) {
            String kind = Manifests.kind(doc);
            if (!kind.equals("Deployment") && !kind.equals("StatefulSet")) {
                continue;
            }
            Map<String, Object> pod = map(doc, "spec", "template", "spec");
            Map<String, Object> container = map(list(pod, "containers").get(0));
            String image = string(container, "image");
            if (image == null || !(image.equals(IMAGE) || image.startsWith(IMAGE + ":"))) {
                continue;
            }
            Map<String, Value> env = new LinkedHashMap<>();
            Manifests.imageEnv().forEach((k, v) -> env.put(k, Value.literal(v, "the image")));
            for (Object from : list(container, "envFrom")) {
                String cm = string(from, "configMapRef", "name");
                if (cm != null) {
                    Map<String, Object> data = configMaps.get(cm);
                    if (data == null) {
                        throw new AssertionError(Manifests.name(doc) + " takes its environment from ConfigMap " + cm
                                + ", which the manifests do not hold");
                    }
                    data.forEach((k, v) -> env.put(k, Value.literal(String.valueOf(v), "ConfigMap " + cm)));
                }
            }
            for (Object e : list(container, "env")) {
                String name = string(e, "name");
                if (map(e, "valueFrom").isEmpty()) {
                    env.put(name, Value.literal(string(e, "value"), kind + " " + Manifests.name(doc)));
                } else {
                    env.put(
                            name,
                            new Value(
                                    null,
                                    string(e, "valueFrom", "secretKeyRef", "name"),
                                    string(e, "valueFrom", "secretKeyRef", "key"),
                                    string(e, "valueFrom", "fieldRef", "fieldPath"),
                                    kind + " " + Manifests.name(doc)));
                }
            }
            out.add(new Workload(Manifests.name(doc), kind, pod, env));
        }
        return out;
    }

    /** The server's services of compose.yaml: every service built from deploy/Dockerfile. */
    static List<Workload> compose(Map<String, Object> compose) {
        List<Workload> out = new ArrayList<>();
        map(compose, "services").forEach((name, service) -> {
            if (string(service, "build", "dockerfile") == null) {
                return;
            }
            Map<String, Value> env = new LinkedHashMap<>();
            Manifests.imageEnv().forEach((k, v) -> env.put(k, Value.literal(v, "the image")));
            map(service, "environment")
                    .forEach((k, v) -> env.put(k, Value.literal(String.valueOf(v), "compose service " + name)));
            out.add(new Workload(name, "compose service", null, env));
        });
        return out;
    }

    /** Variables whose default does not work in a cluster, with why; every process sets them. */
    static final Map<String, String> EVERY_ROLE = Map.of(
            "KAFKA_BOOTSTRAP_SERVERS",
            "unset, every process starts an embedded broker of its own",
            Roles.VARIABLE,
            "unset, every process runs every role",
            InstanceId.VARIABLE,
            "the static member id of its Streams instances and projector fold loops; set it from the pod's name",
            "MP_REPLICATION_FACTOR",
            "the default keeps one copy of each topic the server creates",
            "MP_TABLE_PARTITIONS",
            "every process must agree: whichever starts first creates the topics",
            "MP_LEASE_PARTITIONS",
            "every process must agree: whichever starts first creates the topics",
            "MP_MANAGEMENT_HOST",
            "the default is loopback, which probes, scrapers and load balancers cannot reach",
            "MP_DATA",
            "the default ./data is the working directory's, not a volume");

    /** What the gateway role needs on top. */
    static final Map<String, String> GATEWAY_ROLE = Map.of(
            "MP_HOST", "the default is loopback, which no client outside the container reaches",
            "MP_SHUTDOWN_DELAY", "the default 0s stops answering before the load balancer has seen readiness DOWN");

    /** What a cluster that requires TLS and SCRAM needs of every process. */
    static final Map<String, String> SECURED = Map.of(
            "MP_KAFKA_SECURITY_PROTOCOL", "the listener requires TLS and SASL",
            "MP_KAFKA_SASL_MECHANISM", "the listener requires SCRAM-SHA-512",
            "MP_KAFKA_SASL_JAAS_CONFIG", "the user's credentials",
            "MP_KAFKA_SSL_TRUSTSTORE_LOCATION", "the cluster CA that signed the brokers' certificates");

    /**
     * What is wrong with these workloads' environments: a variable a role needs that is unset, one that the code does
     * not read (a typo would be silently ignored), a value the code would refuse or that cannot work in a cluster.
     *
     * @param secured the cluster requires TLS and SCRAM (Kubernetes), so its client settings are needed too
     */
    static List<String> problems(
            List<Workload> workloads, Manifests.AppProperties app, boolean secured, int replicationFactor) {
        List<String> problems = new ArrayList<>();
        Map<String, String> agreed = new HashMap<>();
        Set<String> instanceIds = new java.util.HashSet<>();
        for (Workload w : workloads) {
            String where = w.kind() + " " + w.name();
            Map<String, String> needed = new LinkedHashMap<>(EVERY_ROLE);
            Roles roles;
            try {
                roles = w.roles();
            } catch (IllegalArgumentException e) {
                problems.add(where + ": " + e.getMessage());
                continue;
            }
            if (roles.has(Roles.Role.GATEWAY)) {
                needed.putAll(GATEWAY_ROLE);
            }
            if (secured) {
                needed.putAll(SECURED);
            }
            for (Map.Entry<String, String> n : needed.entrySet()) {
                if (!w.env().containsKey(n.getKey())) {
                    problems.add(where + " does not set " + n.getKey() + ": " + n.getValue());
                }
            }
            for (String variable : w.env().keySet()) {
                if (!readByTheCode(variable, app)) {
                    problems.add(where + " sets " + variable + ", which the server does not read");
                }
            }
            try {
                Map<String, String> literals = new HashMap<>();
                w.env().forEach((k, v) -> literals.put(k, v.literal() == null ? "from a reference" : v.literal()));
                KafkaClients.passThroughFrom(literals);
            } catch (IllegalArgumentException e) {
                problems.add(where + ": " + e.getMessage());
            }
            for (String host : List.of("MP_HOST", "MP_MANAGEMENT_HOST")) {
                String value = w.literal(host);
                if (needed.containsKey(host) && value != null && !value.equals("0.0.0.0")) {
                    problems.add(where + ": " + host + "=" + value + " is not every address of the container");
                }
            }
            String rf = w.literal("MP_REPLICATION_FACTOR");
            if (rf != null && !rf.equals(String.valueOf(replicationFactor))) {
                problems.add(where + ": MP_REPLICATION_FACTOR=" + rf + ", not " + replicationFactor);
            }
            for (String p : List.of("MP_TABLE_PARTITIONS", "MP_LEASE_PARTITIONS", "MP_PROJECTOR_PARTITIONS")) {
                String value = w.literal(p);
                String before = value == null ? null : agreed.putIfAbsent(p, value);
                if (before != null && !before.equals(value)) {
                    problems.add(where + ": " + p + "=" + value + " while another process has " + before);
                }
            }
            if (roles.has(Roles.Role.GATEWAY) && w.literal("MP_SHUTDOWN_DELAY") != null) {
                if (Manifests.duration(w.literal("MP_SHUTDOWN_DELAY")).isZero()) {
                    problems.add(where + ": MP_SHUTDOWN_DELAY is 0");
                }
            }
            Value id = w.env().get(InstanceId.VARIABLE);
            if (id != null) {
                if (w.pod() != null && !"metadata.name".equals(id.fieldPath())) {
                    problems.add(
                            where + ": " + InstanceId.VARIABLE + " is not the pod's name (fieldRef metadata.name)");
                }
                if (w.pod() == null && (id.literal() == null || !instanceIds.add(id.literal()))) {
                    problems.add(where + ": " + InstanceId.VARIABLE + " is not an id of its own");
                }
            }
        }
        return problems;
    }

    /** Whether the server reads this variable: one of application.properties', or a Kafka client property. */
    static boolean readByTheCode(String variable, Manifests.AppProperties app) {
        if (app.variableDefaults().containsKey(variable)) {
            return true;
        }
        return variable.startsWith(KafkaClients.ENV_PREFIX)
                && variable.length() > KafkaClients.ENV_PREFIX.length()
                && !KafkaClients.NOT_CLIENT_PROPERTIES.contains(variable);
    }
}
