package io.monitorbackbone.deploy;

import static io.monitorbackbone.deploy.Manifests.list;
import static io.monitorbackbone.deploy.Manifests.map;
import static io.monitorbackbone.deploy.Manifests.string;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.bridge.BridgeApp;
import io.monitorbackbone.gateway.Probes;
import io.monitorbackbone.gateway.Roles;
import io.monitorbackbone.gateway.kafka.Follower;
import io.monitorbackbone.projector.ProjectorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The manifests under deploy/ checked against the code, so the two cannot drift: the KafkaUser's ACLs against every
 * topic, group, Streams application id and transactional id the code names, the KafkaTopics against the layout the
 * code creates, every workload's environment against the variables the code reads, the probes and ports against what
 * the gateway serves, the image and the compose cluster likewise. Each rule is also shown to catch a broken manifest.
 */
class ManifestTest {
    private static final String CLUSTER = "mp";
    private static final String USER = "mp-server";
    private static final int REPLICATION_FACTOR = 3;
    private static final int MIN_INSYNC_REPLICAS = 2;

    private static List<Map<String, Object>> docs;
    private static Manifests.AppProperties app;

    @BeforeAll
    static void read() {
        docs = Manifests.k8s();
        app = Manifests.AppProperties.load();
    }

    // The KafkaUser's ACLs.

    @Test
    void theUsersAclsAreExactlyWhatTheServerDoes() {
        assertThat(Access.problems(Access.acls(user(docs)), Access.serverNeeds()))
                .as("the KafkaUser %s's ACLs against the code's names", USER)
                .isEmpty();
    }

    @Test
    void theNeedsNameEveryTopicGroupAndTransactionalIdOfTheCode() {
        List<Access.Need> needs = Access.serverNeeds();
        Set<String> named = new TreeSet<>();
        needs.forEach(n -> named.add(n.type() + " " + n.name()));
        assertThat(named)
                .contains(
                        "topic " + Topics.OBS_PREFIX,
                        "topic " + Topics.MONITORS,
                        "topic " + Topics.LEASE_SUBJECTS,
                        "group " + io.monitorbackbone.gateway.Sweeper.GROUP,
                        "group " + io.monitorbackbone.leases.LeaseApp.APPLICATION_ID,
                        "group " + ProjectorConfig.GROUP_ID,
                        "transactionalId " + io.monitorbackbone.gateway.kafka.KafkaRuntime.CREATE_PREFIX,
                        "transactionalId " + io.monitorbackbone.leases.LeaseApp.APPLICATION_ID + "-",
                        "topic " + Topics.BRIDGE_DEAD_LETTERS,
                        "group " + BridgeApp.GROUP_PREFIX,
                        "transactionalId " + BridgeApp.TRANSACTIONAL_ID_PREFIX);
        // The bridge's names are prefixes, as its groups and transactional ids carry a monitor id.
        assertThat(needs)
                .filteredOn(n ->
                        n.name().equals(BridgeApp.GROUP_PREFIX) && !n.type().equals("topic"))
                .isNotEmpty()
                .allSatisfy(n -> assertThat(n.prefix()).isTrue());
        // Nothing of the server reads the dead letters: the bridge creates and writes them.
        assertThat(needs)
                .filteredOn(n -> n.name().equals(Topics.BRIDGE_DEAD_LETTERS))
                .extracting(Access.Need::operation)
                .containsExactlyInAnyOrder("Create", "Write");
        // The leases service runs exactly once (transactions), the hosted projector at least once (none).
        assertThat(named).doesNotContain("transactionalId " + ProjectorConfig.APPLICATION_ID + "-");
        // The projector's fold loops (docs/adr/0018) need their group and nothing else of their own: no changelog or
        // repartition topic (mp-projector-*), no transactions, and not the group of the Streams app they replaced.
        assertThat(needs)
                .filteredOn(n -> n.name().startsWith(ProjectorConfig.APPLICATION_ID))
                .extracting(n -> n.operation() + " on " + n.type() + " " + n.name() + (n.prefix() ? "*" : ""))
                .containsExactly("Read on group " + ProjectorConfig.GROUP_ID);
    }

    @Test
    void aMissingNarrowedOrExtraAclIsCaught() {
        List<Access.Acl> acls = Access.acls(user(docs));
        List<Access.Need> needs = Access.serverNeeds();

        List<Access.Acl> noSweeperGroup = new ArrayList<>(acls);
        noSweeperGroup.removeIf(a -> a.type().equals("group") && a.name().equals("mp.sweeper"));
        assertThat(Access.problems(noSweeperGroup, needs))
                .anySatisfy(p -> assertThat(p).contains("no ACL allows Read on group mp.sweeper"));

        List<Access.Acl> literalLogs = replace(
                acls, "topic", Topics.OBS_PREFIX, a -> new Access.Acl(a.type(), a.name(), false, a.operations()));
        assertThat(Access.problems(literalLogs, needs))
                .anySatisfy(p -> assertThat(p).contains("no ACL allows Create on topic mp.obs.* (prefix)"));

        List<Access.Acl> noDelete = replace(
                acls,
                "topic",
                Topics.OBS_PREFIX,
                a -> new Access.Acl(a.type(), a.name(), true, without(a.operations(), "Delete")));
        assertThat(Access.problems(noDelete, needs))
                .anySatisfy(p -> assertThat(p).contains("no ACL allows Delete on topic mp.obs.*"));

        List<Access.Acl> wrongPrefix = replace(
                acls,
                "transactionalId",
                "mp-create-",
                a -> new Access.Acl(a.type(), "mp-create.", true, a.operations()));
        assertThat(Access.problems(wrongPrefix, needs))
                .anySatisfy(p -> assertThat(p).contains("no ACL allows Write on transactionalId mp-create-*"));

        List<Access.Acl> noBridgeGroup = new ArrayList<>(acls);
        noBridgeGroup.removeIf(a -> a.type().equals("group") && a.name().equals("mp-bridge."));
        assertThat(Access.problems(noBridgeGroup, needs))
                .anySatisfy(p -> assertThat(p).contains("no ACL allows Read on group mp-bridge.* (prefix)"));

        List<Access.Acl> literalBridgeTransactions = replace(
                acls, "transactionalId", "mp-bridge.", a -> new Access.Acl(a.type(), a.name(), false, a.operations()));
        assertThat(Access.problems(literalBridgeTransactions, needs))
                .anySatisfy(p -> assertThat(p).contains("no ACL allows Write on transactionalId mp-bridge.* (prefix)"));

        List<Access.Acl> noDeadLetters = new ArrayList<>(acls);
        noDeadLetters.removeIf(a -> a.type().equals("topic") && a.name().equals(Topics.BRIDGE_DEAD_LETTERS));
        assertThat(Access.problems(noDeadLetters, needs))
                .anySatisfy(p -> assertThat(p).contains("no ACL allows Write on topic mp.bridge.dead-letters"));

        List<Access.Acl> noProjectorGroup = new ArrayList<>(acls);
        noProjectorGroup.removeIf(a -> a.type().equals("group") && a.name().equals(ProjectorConfig.GROUP_ID));
        assertThat(Access.problems(noProjectorGroup, needs))
                .anySatisfy(p -> assertThat(p).contains("no ACL allows Read on group mp-projector-logs"));

        // The Streams projector's grants (its group, and its changelog and repartition topic, which it purged) are
        // caught as ones no client uses now.
        List<Access.Acl> streamsProjector = new ArrayList<>(acls);
        streamsProjector.add(new Access.Acl("group", ProjectorConfig.APPLICATION_ID, false, Set.of("Read")));
        streamsProjector.add(new Access.Acl(
                "topic", ProjectorConfig.APPLICATION_ID + "-", true, Set.of("Create", "Read", "Write", "Delete")));
        assertThat(Access.problems(streamsProjector, needs))
                .anySatisfy(p -> assertThat(p).contains("[Read] on group mp-projector grants Read"))
                .anySatisfy(p -> assertThat(p).contains("on topic mp-projector-* (prefix) grants Create"))
                .anySatisfy(p -> assertThat(p).contains("on topic mp-projector-* (prefix) grants Delete"));

        List<Access.Acl> broader = new ArrayList<>(acls);
        broader.add(new Access.Acl("topic", "mp.", true, Set.of("Read")));
        broader.add(new Access.Acl("cluster", "kafka-cluster", false, Set.of("Alter")));
        broader.add(new Access.Acl("group", "mp-", true, Set.of("Read")));
        broader.add(new Access.Acl("topic", Topics.BRIDGE_DEAD_LETTERS, false, Set.of("Read")));
        assertThat(Access.problems(broader, needs))
                .anySatisfy(p -> assertThat(p).contains("[Read] on topic mp.* (prefix) grants Read"))
                .anySatisfy(p -> assertThat(p).contains("on cluster kafka-cluster grants Alter"))
                .anySatisfy(p -> assertThat(p).contains("[Read] on group mp-* (prefix) grants Read"))
                .anySatisfy(p -> assertThat(p).contains("[Read] on topic mp.bridge.dead-letters grants Read"));
    }

    // The source topics of bridged monitors, the organisation's: granted in an overlay (deploy/bridged-source).

    @Test
    void theBridgedSourceOverlayGrantsReadOnEachSourceAndNothingElse() {
        List<Access.Acl> extra = Access.sourceAcls();
        assertThat(extra).as("the example overlay names a source").isNotEmpty();
        List<Access.Need> needs = new ArrayList<>(Access.serverNeeds());
        for (Access.Acl a : extra) {
            assertThat(a.type()).isEqualTo("topic");
            assertThat(a.prefix()).as("a source is granted by its literal name").isFalse();
            assertThat(a.name()).doesNotStartWith("mp.").doesNotStartWith("mp-");
            needs.addAll(Access.sourceNeeds(a.name()));
        }
        List<Access.Acl> acls = new ArrayList<>(Access.acls(user(docs)));
        acls.addAll(extra);
        assertThat(Access.problems(acls, needs)).isEmpty();

        // A source granted more than Read, or by a prefix, or not at all, is caught.
        String source = extra.get(0).name();
        List<Access.Acl> more = new ArrayList<>(acls);
        more.add(new Access.Acl("topic", source, false, Set.of("Write", "DescribeConfigs")));
        more.add(new Access.Acl("topic", source.substring(0, 1), true, Set.of("Read")));
        assertThat(Access.problems(more, needs))
                .anySatisfy(p -> assertThat(p).contains("on topic " + source + " grants Write"))
                .anySatisfy(p -> assertThat(p).contains("on topic " + source + " grants DescribeConfigs"))
                .anySatisfy(p -> assertThat(p).contains("(prefix) grants Read"));
        List<Access.Acl> none = new ArrayList<>(Access.acls(user(docs)));
        assertThat(Access.problems(none, needs))
                .anySatisfy(p -> assertThat(p).contains("no ACL allows Read on topic " + source + " "));
    }

    @Test
    void theBridgedSourceOverlayRendersTheServersUserWithTheSourceGrantsAdded() {
        assumeTrue(Manifests.kubectlOnPath(), "kubectl is not on PATH");
        List<Map<String, Object>> rendered = Manifests.kustomize(Manifests.DIR.resolve("bridged-source"));
        List<Access.Acl> expected = new ArrayList<>(Access.acls(user(Manifests.k8sFiles())));
        expected.addAll(Access.sourceAcls());
        assertThat(Access.acls(user(rendered))).containsExactlyInAnyOrderElementsOf(expected);
    }

    // The topics.

    @Test
    void everyFixedTopicIsAKafkaTopicLaidOutAsTheCodeCreatesIt() {
        Map<String, String> cluster = clusterConfig(docs);
        TopicLayout layout = new TopicLayout(
                (short) REPLICATION_FACTOR,
                Integer.parseInt(cluster.get("MP_TABLE_PARTITIONS")),
                Integer.parseInt(cluster.get("MP_LEASE_PARTITIONS")));
        Map<String, List<NewTopic>> created = createdByTheCode(layout);
        assertThat(created.keySet()).containsExactlyInAnyOrderElementsOf(Access.fixedTopics());

        Map<String, Map<String, Object>> topics = new TreeMap<>();
        for (Map<String, Object> t : Manifests.ofKind(docs, "KafkaTopic")) {
            String name = string(t, "spec", "topicName") != null ? string(t, "spec", "topicName") : Manifests.name(t);
            assertThat(topics.put(name, t))
                    .as("one KafkaTopic per topic: %s", name)
                    .isNull();
            assertThat(string(t, "metadata", "labels", "strimzi.io/cluster")).isEqualTo(CLUSTER);
        }
        assertThat(topics.keySet())
                .as("a KafkaTopic for every fixed topic of binding/Topics, and no other")
                .containsExactlyInAnyOrderElementsOf(Access.fixedTopics());

        for (Map.Entry<String, Map<String, Object>> e : topics.entrySet()) {
            Map<String, Object> spec = map(e.getValue(), "spec");
            assertThat(string(spec, "replicas"))
                    .as("%s's replicas", e.getKey())
                    .isEqualTo(String.valueOf(REPLICATION_FACTOR));
            Map<String, String> config = new TreeMap<>();
            map(spec, "config").forEach((k, v) -> config.put(k, String.valueOf(v)));
            assertThat(config.remove("min.insync.replicas"))
                    .as("%s's min.insync.replicas", e.getKey())
                    .isEqualTo(String.valueOf(MIN_INSYNC_REPLICAS));
            List<String> layouts = new ArrayList<>();
            boolean matches = false;
            for (NewTopic t : created.get(e.getKey())) {
                Map<String, String> expected = new TreeMap<>(t.configs() == null ? Map.of() : t.configs());
                layouts.add(t.numPartitions() + " partitions " + expected);
                matches |=
                        string(spec, "partitions").equals(String.valueOf(t.numPartitions())) && expected.equals(config);
            }
            assertThat(matches)
                    .as(
                            "%s is %s partitions %s; the code creates it as one of %s",
                            e.getKey(), string(spec, "partitions"), config, layouts)
                    .isTrue();
        }
    }

    /** How the code creates each fixed topic, by name; a topic two roles create may have two layouts. */
    private static Map<String, List<NewTopic>> createdByTheCode(TopicLayout layout) {
        Map<String, List<NewTopic>> out = new TreeMap<>();
        List<NewTopic> all = new ArrayList<>();
        // Every process's start, whatever its roles: the tables the follower reads (mp.state among them) and the
        // sweeper's topic. A projector creates mp.state too (with MP_PROJECTOR_PARTITIONS) but only where it is
        // missing, which in the server it never is by then. A gateway's and a leases process's start: the lease topics.
        Follower.tables().forEach(t -> all.add(layout.table(t)));
        all.add(layout.table(Topics.SWEEPER));
        all.addAll(layout.leaseTopics());
        // A bridge's start: the monitors table it follows (above) and its dead letters.
        all.add(layout.bridgeDeadLetters());
        all.forEach(t -> out.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(t));
        return out;
    }

    @Test
    void theKafkaClusterKeepsTwoInSyncCopiesOfEverything() {
        Map<String, Object> kafka = Manifests.one(docs, "Kafka", CLUSTER);
        Map<String, Object> config = map(kafka, "spec", "kafka", "config");
        assertThat(string(kafka, "spec", "kafka", "version")).isEqualTo(System.getProperty("mp.kafka.version"));
        // The topics the server creates on the fly (monitors' logs, the leases app's internal ones) take these.
        assertThat(String.valueOf(config.get("default.replication.factor")))
                .isEqualTo(String.valueOf(REPLICATION_FACTOR));
        assertThat(String.valueOf(config.get("min.insync.replicas"))).isEqualTo(String.valueOf(MIN_INSYNC_REPLICAS));
        assertThat(String.valueOf(config.get("transaction.state.log.replication.factor")))
                .isEqualTo("3");
        assertThat(String.valueOf(config.get("transaction.state.log.min.isr"))).isEqualTo("2");
        assertThat(String.valueOf(config.get("offsets.topic.replication.factor")))
                .isEqualTo("3");
        assertThat(String.valueOf(config.get("auto.create.topics.enable"))).isEqualTo("false");
        assertThat(string(kafka, "spec", "kafka", "authorization", "type")).isEqualTo("simple");

        int brokers = 0;
        for (Map<String, Object> pool : Manifests.ofKind(docs, "KafkaNodePool")) {
            assertThat(string(pool, "metadata", "labels", "strimzi.io/cluster")).isEqualTo(CLUSTER);
            if (list(pool, "spec", "roles").contains("broker")) {
                brokers += Integer.parseInt(string(pool, "spec", "replicas"));
            }
        }
        assertThat(brokers).isEqualTo(3);

        // The one listener the server uses: TLS and SCRAM-SHA-512, the user's mechanism, at the bootstrap address.
        Map<String, Object> listener =
                map(list(kafka, "spec", "kafka", "listeners").get(0));
        assertThat(string(listener, "tls")).isEqualTo("true");
        assertThat(string(listener, "authentication", "type")).isEqualTo("scram-sha-512");
        assertThat(string(user(docs), "spec", "authentication", "type")).isEqualTo("scram-sha-512");
        Map<String, String> cluster = clusterConfig(docs);
        assertThat(cluster.get("KAFKA_BOOTSTRAP_SERVERS"))
                .isEqualTo(CLUSTER + "-kafka-bootstrap:" + string(listener, "port"));
        assertThat(cluster.get("MP_KAFKA_SECURITY_PROTOCOL")).isEqualTo("SASL_SSL");
        assertThat(cluster.get("MP_KAFKA_SASL_MECHANISM")).isEqualTo("SCRAM-SHA-512");
    }

    // The workloads.

    @Test
    void everyWorkloadSetsWhatItsRolesNeedAndOnlyWhatTheServerReads() {
        List<Workloads.Workload> workloads = Workloads.k8s(docs);
        assertThat(Workloads.problems(workloads, app, true, REPLICATION_FACTOR)).isEmpty();
        // Every variable the check asks for is one the gateway reads (a renamed one fails here).
        for (String v : union(Workloads.EVERY_ROLE.keySet(), Workloads.GATEWAY_ROLE.keySet())) {
            app.defaultOf(v);
        }
    }

    @Test
    void aMissingOrMistypedVariableIsCaught() {
        List<Map<String, Object>> broken = Manifests.k8sFiles();
        Map<String, Object> data = map(Manifests.one(broken, "ConfigMap", "mp-cluster"), "data");
        data.remove("MP_REPLICATION_FACTOR");
        data.put("MP_REPLICATON_FACTOR", "3");
        Map<String, Object> leasesContainer = map(
                list(map(Manifests.one(broken, "StatefulSet", "mp-leases"), "spec", "template", "spec"), "containers")
                        .get(0));
        list(leasesContainer, "env").removeIf(e -> "MP_INSTANCE_ID".equals(string(e, "name")));
        Map<String, Object> gatewayContainer = map(
                list(map(Manifests.one(broken, "Deployment", "mp-gateway"), "spec", "template", "spec"), "containers")
                        .get(0));
        list(gatewayContainer, "env").removeIf(e -> "MP_SHUTDOWN_DELAY".equals(string(e, "name")));

        assertThat(Workloads.problems(Workloads.k8s(broken), app, true, REPLICATION_FACTOR))
                .anySatisfy(
                        p -> assertThat(p).startsWith("StatefulSet mp-projector does not set MP_REPLICATION_FACTOR"))
                .anySatisfy(p -> assertThat(p)
                        .isEqualTo(
                                "StatefulSet mp-projector sets MP_REPLICATON_FACTOR, which the server does not read"))
                .anySatisfy(p -> assertThat(p).startsWith("StatefulSet mp-leases does not set MP_INSTANCE_ID"))
                .anySatisfy(p -> assertThat(p).startsWith("Deployment mp-gateway does not set MP_SHUTDOWN_DELAY"));
    }

    @Test
    void theGatewaysAreADeploymentAndTheWorkersStatefulSets() {
        Map<Set<Roles.Role>, String> kinds = new HashMap<>();
        for (Workloads.Workload w : Workloads.k8s(docs)) {
            kinds.put(w.roles().set(), w.kind());
        }
        assertThat(kinds)
                .containsEntry(Set.of(Roles.Role.GATEWAY), "Deployment")
                .containsEntry(Set.of(Roles.Role.PROJECTOR), "StatefulSet")
                .containsEntry(Set.of(Roles.Role.LEASES), "StatefulSet")
                .containsEntry(Set.of(Roles.Role.BRIDGE), "StatefulSet")
                .hasSize(4);
        Map<String, Object> gateway = Manifests.one(docs, "Deployment", "mp-gateway");
        assertThat(Integer.parseInt(string(gateway, "spec", "replicas"))).isGreaterThanOrEqualTo(2);
        for (Workloads.Workload w : Workloads.k8s(docs)) {
            // Every container runs as the image's user, never as root, and the data directory is a volume.
            assertThat(string(w.pod(), "securityContext", "runAsNonRoot")).isEqualTo("true");
            assertThat(mountPaths(w)).contains(w.literal("MP_DATA"));
            // Only the leases service keeps something on disk (its Streams stores under MP_DATA), on a volume of each
            // pod's own; the projector's checkpoint is mp.state, the bridge's its groups' offsets: an emptyDir each.
            Map<String, Object> set = Manifests.one(docs, w.kind(), w.name());
            Set<String> claims = new TreeSet<>();
            list(set, "spec", "volumeClaimTemplates").forEach(c -> claims.add(string(c, "metadata", "name")));
            assertThat(claims)
                    .as("%s %s's volume claims", w.kind(), w.name())
                    .isEqualTo(w.has(Roles.Role.LEASES) ? Set.of("data") : Set.of());
        }
    }

    @Test
    void probesAndPortsAreTheOnesTheGatewayServes() {
        for (Workloads.Workload w : Workloads.k8s(docs)) {
            Map<String, Object> c = w.container();
            Map<String, Integer> ports = new HashMap<>();
            for (Object p : list(c, "ports")) {
                ports.put(string(p, "name"), Integer.parseInt(string(p, "containerPort")));
            }
            int management = port(w, "MP_MANAGEMENT_PORT");
            assertThat(ports).as("%s's ports", w.name()).containsEntry("management", management);
            if (w.has(Roles.Role.GATEWAY)) {
                assertThat(ports).containsEntry("http", port(w, "MP_PORT"));
            } else {
                assertThat(ports).as("a worker binds no API port").doesNotContainKey("http");
            }
            Map<String, String> probes = Map.of(
                    "startupProbe", Probes.STARTED_PATH,
                    "readinessProbe", Probes.READY_PATH,
                    "livenessProbe", Probes.LIVE_PATH);
            probes.forEach((probe, path) -> {
                assertThat(string(c, probe, "httpGet", "path"))
                        .as("%s's %s", w.name(), probe)
                        .isEqualTo(path);
                String port = string(c, probe, "httpGet", "port");
                assertThat(ports.getOrDefault(port, port.matches("\\d+") ? Integer.parseInt(port) : -1))
                        .as("%s's %s port", w.name(), probe)
                        .isEqualTo(management);
            });
        }
    }

    @Test
    void aGatewayHasTimeToStopBeforeItIsKilled() {
        Duration shutdownTimeout = Manifests.duration(app.properties().get("quarkus.shutdown.timeout"));
        for (Workloads.Workload w : Workloads.k8s(docs)) {
            if (w.has(Roles.Role.GATEWAY)) {
                Duration delay = Manifests.duration(w.literal("MP_SHUTDOWN_DELAY"));
                long grace = Long.parseLong(string(w.pod(), "terminationGracePeriodSeconds"));
                assertThat(Duration.ofSeconds(grace))
                        .as("the grace period covers MP_SHUTDOWN_DELAY and quarkus.shutdown.timeout")
                        .isGreaterThan(delay.plus(shutdownTimeout));
            }
        }
    }

    @Test
    void theGatewaysAreSpreadBudgetedAndReachable() {
        Map<String, Object> gateway = Manifests.one(docs, "Deployment", "mp-gateway");
        Map<String, Object> podLabels = map(gateway, "spec", "template", "metadata", "labels");
        Object term = map(list(
                                map(gateway, "spec", "template", "spec", "affinity", "podAntiAffinity"),
                                "preferredDuringSchedulingIgnoredDuringExecution")
                        .get(0))
                .get("podAffinityTerm");
        assertThat(string(term, "topologyKey")).isEqualTo("kubernetes.io/hostname");
        assertThat(podLabels).containsAllEntriesOf(map(term, "labelSelector", "matchLabels"));

        Map<String, Object> pdb = Manifests.one(docs, "PodDisruptionBudget", "mp-gateway");
        assertThat(podLabels).containsAllEntriesOf(map(pdb, "spec", "selector", "matchLabels"));
        assertThat(string(pdb, "spec", "maxUnavailable")).isEqualTo("1");

        // Every Service selects pods of one workload and names ports those pods have.
        for (Map<String, Object> service : Manifests.ofKind(docs, "Service")) {
            Map<String, Object> selector = map(service, "spec", "selector");
            List<Workloads.Workload> selected = Workloads.k8s(docs).stream()
                    .filter(w ->
                            map(podTemplate(w), "metadata", "labels").entrySet().containsAll(selector.entrySet()))
                    .toList();
            assertThat(selected)
                    .as("the pods Service %s selects", Manifests.name(service))
                    .hasSize(1);
            Set<String> names = new TreeSet<>();
            list(selected.get(0).container(), "ports").forEach(p -> names.add(string(p, "name")));
            for (Object p : list(service, "spec", "ports")) {
                assertThat(names).contains(string(p, "targetPort"));
            }
        }
        for (Map<String, Object> set : Manifests.ofKind(docs, "StatefulSet")) {
            Manifests.one(docs, "Service", string(set, "spec", "serviceName"));
        }
    }

    @Test
    void theCredentialsComeFromTheUsersSecretAndTheTrustFromTheClusterCa() {
        for (Workloads.Workload w : Workloads.k8s(docs)) {
            Workloads.Value jaas = w.env().get("MP_KAFKA_SASL_JAAS_CONFIG");
            assertThat(jaas.secretName())
                    .as("the Secret the User Operator writes")
                    .isEqualTo(USER);
            assertThat(jaas.secretKey()).isEqualTo("sasl.jaas.config");
            String truststore = w.literal("MP_KAFKA_SSL_TRUSTSTORE_LOCATION");
            Map<String, String> secretByMount = new HashMap<>();
            Map<String, String> secretByVolume = new HashMap<>();
            list(w.pod(), "volumes")
                    .forEach(v -> secretByVolume.put(string(v, "name"), string(v, "secret", "secretName")));
            list(w.container(), "volumeMounts")
                    .forEach(m -> secretByMount.put(string(m, "mountPath"), secretByVolume.get(string(m, "name"))));
            assertThat(secretByMount)
                    .containsEntry(truststore.substring(0, truststore.lastIndexOf('/')), CLUSTER + "-cluster-ca-cert");
            assertThat(w.literal("MP_KAFKA_SSL_TRUSTSTORE_TYPE")).isEqualTo("PEM");
        }
    }

    @Test
    void kustomizeRendersTheFilesItLists() {
        assumeTrue(Manifests.kubectlOnPath(), "kubectl is not on PATH; the other tests read the files");
        Set<String> rendered = new TreeSet<>();
        Manifests.kustomize(Manifests.K8S).forEach(d -> rendered.add(Manifests.kind(d) + "/" + Manifests.name(d)));
        Set<String> files = new TreeSet<>();
        Manifests.k8sFiles().forEach(d -> files.add(Manifests.kind(d) + "/" + Manifests.name(d)));
        assertThat(rendered).isEqualTo(files);
    }

    // The image.

    @Test
    void theImageRunsTheFastJarAsAnotherUserThanRootOnEveryAddress() {
        List<String[]> image = Manifests.dockerfile();
        Map<String, String> env = Manifests.imageEnv();
        String from =
                image.stream().filter(i -> i[0].equals("FROM")).findFirst().orElseThrow()[1];
        assertThat(from).contains("17").contains("jre");
        String user = image.stream()
                .filter(i -> i[0].equals("USER"))
                .reduce((a, b) -> b)
                .orElseThrow()[1];
        assertThat(user.split(":")[0]).isNotIn("0", "root");
        assertThat(env).containsEntry("MP_HOST", "0.0.0.0").containsEntry("MP_MANAGEMENT_HOST", "0.0.0.0");

        Set<String> exposed = new TreeSet<>();
        image.stream().filter(i -> i[0].equals("EXPOSE")).forEach(i -> exposed.addAll(List.of(i[1].split("\\s+"))));
        assertThat(exposed)
                .containsExactlyInAnyOrder(
                        env.getOrDefault("MP_PORT", app.defaultOf("MP_PORT")),
                        env.getOrDefault("MP_MANAGEMENT_PORT", app.defaultOf("MP_MANAGEMENT_PORT")));
        // The ports the image sets are the gateway's defaults, so a container run without them serves the same.
        assertThat(env.get("MP_PORT")).isEqualTo(app.defaultOf("MP_PORT"));
        assertThat(env.get("MP_MANAGEMENT_PORT")).isEqualTo(app.defaultOf("MP_MANAGEMENT_PORT"));

        String volume =
                image.stream().filter(i -> i[0].equals("VOLUME")).findFirst().orElseThrow()[1];
        assertThat(volume).isEqualTo(env.get("MP_DATA"));
        assertThat(image.stream().filter(i -> i[0].equals("COPY")).map(i -> i[1]))
                .allSatisfy(c -> assertThat(c).startsWith("gateway/target/quarkus-app/"));
        String entrypoint = image.stream()
                .filter(i -> i[0].equals("ENTRYPOINT"))
                .findFirst()
                .orElseThrow()[1];
        assertThat(entrypoint).contains("quarkus-run.jar");
        for (String variable : env.keySet()) {
            assertThat(Workloads.readByTheCode(variable, app))
                    .as("the image sets %s", variable)
                    .isTrue();
        }
    }

    // The compose cluster.

    @Test
    void theComposeClusterIsThreeBrokersOfTheProjectsKafkaAndTheServersRoles() {
        Map<String, Object> compose = Manifests.compose();
        Map<String, Object> services = map(compose, "services");
        List<String> brokers = new ArrayList<>();
        services.forEach((name, s) -> {
            String image = string(s, "image");
            if (image != null && image.startsWith("apache/kafka")) {
                brokers.add(name);
                assertThat(image).isEqualTo("apache/kafka:" + System.getProperty("mp.kafka.version"));
                Map<String, Object> env = map(s, "environment");
                assertThat(String.valueOf(env.get("KAFKA_DEFAULT_REPLICATION_FACTOR")))
                        .isEqualTo("3");
                assertThat(String.valueOf(env.get("KAFKA_MIN_INSYNC_REPLICAS"))).isEqualTo("2");
                assertThat(String.valueOf(env.get("KAFKA_ADVERTISED_LISTENERS")))
                        .contains(name + ":9092");
            }
        });
        assertThat(brokers).hasSize(3);
        for (String b : brokers) {
            String voters = string(services.get(b), "environment", "KAFKA_CONTROLLER_QUORUM_VOTERS");
            brokers.forEach(other -> assertThat(voters).contains("@" + other + ":"));
        }

        List<Workloads.Workload> servers = Workloads.compose(compose);
        assertThat(Workloads.problems(servers, app, false, REPLICATION_FACTOR)).isEmpty();
        for (Workloads.Workload w : servers) {
            assertThat(w.literal("KAFKA_BOOTSTRAP_SERVERS").split(","))
                    .containsExactlyInAnyOrderElementsOf(
                            brokers.stream().map(b -> b + ":9092").toList());
        }
        assertThat(servers.stream().filter(w -> w.roles().set().equals(Set.of(Roles.Role.GATEWAY))))
                .hasSize(2);
        assertThat(servers.stream().map(w -> w.roles().set()))
                .contains(Set.of(Roles.Role.PROJECTOR), Set.of(Roles.Role.LEASES), Set.of(Roles.Role.BRIDGE));
        Duration shutdownTimeout = Manifests.duration(app.properties().get("quarkus.shutdown.timeout"));
        for (Workloads.Workload w : servers) {
            if (w.has(Roles.Role.GATEWAY)) {
                Duration grace = Manifests.duration(string(services.get(w.name()), "stop_grace_period"));
                assertThat(grace)
                        .isGreaterThan(Manifests.duration(w.literal("MP_SHUTDOWN_DELAY"))
                                .plus(shutdownTimeout));
            }
        }
    }

    @Test
    void haproxySendsRequestsToEveryGatewayWhileItIsReady() {
        List<Workloads.Workload> gateways = Workloads.compose(Manifests.compose()).stream()
                .filter(w -> w.has(Roles.Role.GATEWAY))
                .toList();
        List<String> backend = new ArrayList<>();
        boolean inBackend = false;
        for (String line : Manifests.haproxy()) {
            String t = line.strip();
            if (!line.startsWith(" ") && !t.isEmpty()) {
                inBackend = t.startsWith("backend ");
            } else if (inBackend && !t.isEmpty() && !t.startsWith("#")) {
                backend.add(t);
            }
        }
        assertThat(backend).contains("option httpchk GET " + Probes.READY_PATH);
        Map<String, String> servers = new LinkedHashMap<>();
        String checkPort = null;
        for (String t : backend) {
            String[] words = t.split("\\s+");
            if (words[0].equals("server")) {
                servers.put(words[1], words[2]);
            }
            if (words[0].equals("default-server")) {
                for (int i = 0; i < words.length - 1; i++) {
                    if (words[i].equals("port")) {
                        checkPort = words[i + 1];
                    }
                }
            }
        }
        Map<String, String> expected = new LinkedHashMap<>();
        for (Workloads.Workload w : gateways) {
            expected.put(w.name(), w.name() + ":" + port(w, "MP_PORT"));
            assertThat(checkPort).isEqualTo(String.valueOf(port(w, "MP_MANAGEMENT_PORT")));
        }
        assertThat(servers).isEqualTo(expected);
    }

    // Helpers.

    private static Map<String, Object> user(List<Map<String, Object>> docs) {
        return Manifests.one(docs, "KafkaUser", USER);
    }

    private static Map<String, String> clusterConfig(List<Map<String, Object>> docs) {
        Map<String, String> out = new TreeMap<>();
        map(Manifests.one(docs, "ConfigMap", "mp-cluster"), "data").forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }

    /** The port a variable sets for this workload, or the gateway's default for it. */
    private static int port(Workloads.Workload w, String variable) {
        String value = w.literal(variable);
        return Integer.parseInt(value != null ? value : app.defaultOf(variable));
    }

    private static Map<String, Object> podTemplate(Workloads.Workload w) {
        for (Map<String, Object> d : docs) {
            if (w.name().equals(Manifests.name(d)) && w.kind().equals(Manifests.kind(d))) {
                return map(d, "spec", "template");
            }
        }
        throw new AssertionError(w.name());
    }

    private static Set<String> mountPaths(Workloads.Workload w) {
        Set<String> paths = new TreeSet<>();
        list(w.container(), "volumeMounts").forEach(m -> paths.add(string(m, "mountPath")));
        return paths;
    }

    private static List<Access.Acl> replace(
            List<Access.Acl> acls, String type, String name, java.util.function.UnaryOperator<Access.Acl> change) {
        List<Access.Acl> out = new ArrayList<>();
        for (Access.Acl a : acls) {
            out.add(a.type().equals(type) && a.name().equals(name) ? change.apply(a) : a);
        }
        return out;
    }

    private static Set<String> without(Set<String> set, String element) {
        Set<String> out = new TreeSet<>(set);
        out.remove(element);
        return out;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> out = new TreeSet<>(a);
        out.addAll(b);
        return out;
    }
}
