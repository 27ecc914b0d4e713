package io.monitorbackbone.deploy;

import io.monitorbackbone.binding.Durability;
import io.monitorbackbone.binding.KafkaClients;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.bridge.BridgeApp;
import io.monitorbackbone.gateway.Sweeper;
import io.monitorbackbone.gateway.kafka.KafkaRuntime;
import io.monitorbackbone.leases.LeaseApp;
import io.monitorbackbone.leases.LeaseSerdes;
import io.monitorbackbone.leases.LeaseTopology;
import io.monitorbackbone.projector.ProjectorConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;

/**
 * What the server does on a Kafka cluster that an ACL must allow, derived from the code's own names, and the check of a
 * KafkaUser's ACLs against it both ways: every need covered, no grant that no need uses.
 */
final class Access {
    private Access() {}

    /** One thing a client of the server does: an operation on a resource, named literally or by a prefix. */
    record Need(String type, String name, boolean prefix, String operation, String why) {
        @Override
        public String toString() {
            return operation + " on " + type + " " + name + (prefix ? "* (prefix)" : "") + " (" + why + ")";
        }
    }

    /** One ACL of a KafkaUser. */
    record Acl(String type, String name, boolean prefix, Set<String> operations) {
        @Override
        public String toString() {
            return operations + " on " + type + " " + name + (prefix ? "* (prefix)" : "");
        }

        /** Whether this ACL allows the need: the name matches and an operation is the need's or implies it. */
        boolean allows(Need need) {
            return type.equals(need.type()) && matches(need) && implies(operations, need.operation());
        }

        boolean matches(Need need) {
            if (name.equals("*")) {
                return true;
            }
            if (prefix) {
                return need.name().startsWith(name);
            }
            return !need.prefix() && need.name().equals(name);
        }
    }

    /** Kafka's implications: All is everything; Read, Write, Delete, Alter imply Describe; AlterConfigs DescribeConfigs. */
    static boolean implies(Set<String> granted, String operation) {
        if (granted.contains("All") || granted.contains(operation)) {
            return true;
        }
        if (operation.equals("Describe")) {
            return granted.stream().anyMatch(Set.of("Read", "Write", "Delete", "Alter")::contains);
        }
        return operation.equals("DescribeConfigs") && granted.contains("AlterConfigs");
    }

    /** Every fixed topic of {@link Topics}: its public constant names, the prefix of monitors' logs excepted. */
    static List<String> fixedTopics() {
        List<String> topics = new ArrayList<>();
        for (Field f : Topics.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers())
                    && f.getType() == String.class
                    && !f.getName().equals("OBS_PREFIX")) {
                try {
                    topics.add((String) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return topics;
    }

    /** What the server's roles do on the cluster, named by the code's constants. */
    static List<Need> serverNeeds() {
        List<Need> needs = new ArrayList<>();
        for (String topic : fixedTopics()) {
            needs.add(new Need("topic", topic, false, "Create", "every role creates the topics it uses where missing"));
            if (!topic.equals(Topics.BRIDGE_DEAD_LETTERS)) {
                // The bridge's dead letters are for the organisation's operators to read: no role of the server does.
                needs.add(new Need("topic", topic, false, "Read", "followed or consumed"));
            }
            if (!topic.equals(Topics.SWEEPER)) {
                // The sweeper's topic only elects a member of its group: nobody writes it.
                needs.add(new Need("topic", topic, false, "Write", "written by the gateway or a Streams app"));
            }
        }
        String obs = Topics.OBS_PREFIX;
        needs.add(new Need("topic", obs, true, "Create", "a monitor's log is created with the monitor"));
        needs.add(new Need("topic", obs, true, "Read", "pages, the follower, the projector's fold loops"));
        needs.add(new Need("topic", obs, true, "Write", "observations, and the leases service's lease rows"));
        needs.add(new Need("topic", obs, true, "AlterConfigs", "a monitor's retention (incrementalAlterConfigs)"));
        needs.add(new Need("topic", obs, true, "Delete", "admin/compact moves the retention floor (deleteRecords)"));

        needs.add(new Need("group", Sweeper.GROUP, false, "Read", "the sweeper's election"));
        needs.add(new Need(
                "transactionalId",
                KafkaRuntime.CREATE_PREFIX,
                true,
                "Write",
                "a monitor's create fences earlier ones (docs/adr/0011)"));
        needs.add(new Need(
                "transactionalId",
                KafkaRuntime.CREATE_PREFIX,
                true,
                "Describe",
                "a gateway's start lists creates cut short (listTransactions)"));

        // The bridge (docs/adr/0015-bridge.md): a consumer group per bridged monitor, whose offsets it commits, also
        // inside its transactions (sendOffsetsToTransaction); a transactional producer per monitor and process. What it
        // writes (a monitor's log, the lease-subject marks, the dead letters) and follows (mp.monitors) is above; the
        // source topics are the organisation's (sourceNeeds).
        needs.add(new Need(
                "group",
                BridgeApp.GROUP_PREFIX,
                true,
                "Read",
                "a bridged monitor's consumer group, " + BridgeApp.GROUP_PREFIX + "<monitor id>"));
        needs.add(new Need(
                "transactionalId",
                BridgeApp.TRANSACTIONAL_ID_PREFIX,
                true,
                "Write",
                "a bridge's transactions, " + BridgeApp.TRANSACTIONAL_ID_PREFIX + "<monitor id>.<instance id>"));

        streamsApp(
                needs,
                LeaseApp.APPLICATION_ID,
                leasesGuarantee(),
                LeaseTopology.build(LeaseTopology.Topics.DEFAULT.withPartitions(3), LeaseSerdes.json()));
        // The projector (docs/adr/0018): a consumer group over the monitors' logs (read above), committing nothing; it
        // writes mp.state (above) and has no topic of its own.
        needs.add(new Need("group", ProjectorConfig.GROUP_ID, false, "Read", "the projector's fold loops, one group"));
        return needs;
    }

    /** A Streams app: its group, its internal topics ({@code <application id>-...}), its transactions under EOS. */
    private static void streamsApp(List<Need> needs, String applicationId, String guarantee, Topology topology) {
        needs.add(new Need("group", applicationId, false, "Read", "the Streams app's consumer group"));
        String internal = applicationId + "-";
        // Created and described (describeTopics) at the app's start, then read and written; Streams reads no topic
        // configuration on the way (KafkaUserAclsIT runs without DescribeConfigs).
        for (String op : List.of("Create", "Read", "Write")) {
            needs.add(new Need("topic", internal, true, op, applicationId + "'s changelogs and repartition topics"));
        }
        if (repartitions(topology)) {
            needs.add(new Need(
                    "topic",
                    internal,
                    true,
                    "Delete",
                    applicationId + " purges its repartition topic (deleteRecords)"));
        }
        if (!guarantee.equals(StreamsConfig.AT_LEAST_ONCE)) {
            needs.add(new Need(
                    "transactionalId",
                    internal,
                    true,
                    "Write",
                    applicationId + " runs " + guarantee + ": transactional ids <application id>-<process>-<thread>"));
        }
    }

    /** Whether a topology reads a repartition topic of its own, which Streams purges once its records are read. */
    static boolean repartitions(Topology topology) {
        for (TopologyDescription.Subtopology sub : topology.describe().subtopologies()) {
            for (TopologyDescription.Node node : sub.nodes()) {
                if (node instanceof TopologyDescription.Source source
                        && source.topicSet() != null
                        && source.topicSet().stream().anyMatch(t -> t.endsWith("-repartition"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * What the bridge does on a bridged monitor's source, a topic the organisation names and owns: its consumer reads it
     * (fetch, the group's offsets, offsets by time and the end offsets, all of which Read allows, as it implies
     * Describe). It reads no topic configuration (no DescribeConfigs) and never writes or creates it.
     */
    static List<Need> sourceNeeds(String topic) {
        return List.of(new Need("topic", topic, false, "Read", "the source of a bridged monitor, kafka:" + topic));
    }

    /** The leases app's processing guarantee, as the hosting process configures it. */
    static String leasesGuarantee() {
        return String.valueOf(LeaseApp.config(new LeaseApp.Settings(
                        KafkaClients.of("kafka:9092"), Path.of("/data"), "leases-0", 3, Durability.of((short) 3), 10))
                .get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
    }

    /** A KafkaUser's ACLs. */
    static List<Acl> acls(Map<String, Object> kafkaUser) {
        List<Acl> acls = new ArrayList<>();
        for (Object o : Manifests.list(kafkaUser, "spec", "authorization", "acls")) {
            Map<String, Object> resource = Manifests.map(o, "resource");
            String type = Manifests.string(resource, "type");
            String name = type.equals("cluster") ? "kafka-cluster" : Manifests.string(resource, "name");
            String pattern = Manifests.string(resource, "patternType");
            Set<String> ops = new TreeSet<>();
            Manifests.list(o, "operations").forEach(op -> ops.add(op.toString()));
            String single = Manifests.string(o, "operation");
            if (single != null) {
                ops.add(single);
            }
            acls.add(new Acl(type, name, "prefix".equals(pattern), ops));
        }
        return acls;
    }

    /**
     * The ACLs the example overlay {@code deploy/bridged-source} adds to the server's KafkaUser: the values of its JSON
     * patch's {@code add} operations on the user's ACL list.
     */
    static List<Acl> sourceAcls() {
        List<Object> entries = new ArrayList<>();
        Object patch = new org.yaml.snakeyaml.Yaml()
                .load(Manifests.read(Manifests.DIR.resolve("bridged-source/source-acls.yaml")));
        for (Object op : (List<?>) patch) {
            if (!"add".equals(Manifests.string(op, "op"))
                    || !"/spec/authorization/acls/-".equals(Manifests.string(op, "path"))) {
                throw new AssertionError("the overlay's patch only adds ACLs to the user: " + op);
            }
            entries.add(Manifests.map(op, "value"));
        }
        return acls(Map.of("spec", Map.of("authorization", Map.of("acls", entries))));
    }

    /** What is wrong with these ACLs for these needs: each need no ACL allows, each grant no need uses. */
    static List<String> problems(List<Acl> acls, List<Need> needs) {
        List<String> problems = new ArrayList<>();
        for (Need need : needs) {
            if (acls.stream().noneMatch(a -> a.allows(need))) {
                problems.add("no ACL allows " + need);
            }
        }
        // Exactly: a grant is used when a need names the same resource the same way (a broader prefix, a wildcard or
        // All would grant what the code never does) with that operation.
        for (Acl acl : acls) {
            for (String op : acl.operations()) {
                boolean used = needs.stream()
                        .anyMatch(n -> n.type().equals(acl.type())
                                && n.prefix() == acl.prefix()
                                && n.name().equals(acl.name())
                                && n.operation().equals(op));
                if (!used) {
                    problems.add("the ACL " + acl + " grants " + op + ", which no client of the server needs there");
                }
            }
        }
        return problems;
    }
}
