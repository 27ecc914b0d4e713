package io.monitorbackbone.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.broker.ClientCredentials;
import io.monitorbackbone.gateway.Probes;
import io.monitorbackbone.projector.ProjectorConfig;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ScramKafka;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The KafkaUser's ACLs (deploy/k8s/user.yaml) given to a user of a broker that enforces ACLs, and the server, every role
 * in one process, run as that user: every part of it works (create, publish, subscribe, pull, ack, a lease claim, the
 * fold, a retention change, admin/compact) and nothing in its log says it was refused. Without one of the grants the
 * operation that needs it is refused, so the run shows what the ACLs are for, not only that the broker lets all through.
 */
class KafkaUserAclsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final String USER = "mp-server";
    private static final String ADMIN_TOKEN = "tok-acl-admin";

    @Test
    void theServerRunsAsTheKafkaUserWithExactlyItsAcls() throws Exception {
        List<Access.Acl> acls = Access.acls(Manifests.one(Manifests.k8sFiles(), "KafkaUser", USER));
        try (ScramKafka kafka = ScramKafka.startAuthorizing();
                Admin admin = Admin.create(new HashMap<>(kafka.clientProperties()))) {
            ClientCredentials user =
                    new ClientCredentials(USER, ClientCredentials.generate().password());
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), user.password())))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            List<AclBinding> bindings = bindings(acls);
            admin.createAcls(bindings).all().get(60, TimeUnit.SECONDS);
            // A bridged monitor's source, the organisation's topic, written by a plain producer as the broker's own
            // user; the server's user may read it as the bridged-source overlay grants (docs/cluster.md).
            List<Access.Acl> sourceAcls = Access.sourceAcls();
            String source = sourceAcls.get(0).name();
            admin.createTopics(List.of(new NewTopic(source, 2, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            admin.createAcls(bindings(sourceAcls)).all().get(60, TimeUnit.SECONDS);

            Map<String, String> env = new LinkedHashMap<>();
            env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
            user.securityProperties()
                    .forEach((name, value) ->
                            env.put("MP_KAFKA_" + name.toUpperCase(Locale.ROOT).replace('.', '_'), value));
            env.put("MP_ADMIN_TOKEN", ADMIN_TOKEN);
            try (ServerProcess server = ServerProcess.builder().env(env).start()) {
                Http http = new Http(server.baseUri());
                String monitor = "acl-" + Long.toHexString(System.nanoTime());
                Http.Response created = http.post(
                        "/mp/v0/monitors",
                        "{\"id\":\"" + monitor + "\",\"name\":\"ACL\",\"horizon\":\"minute\",\"visibility\":\"public\","
                                + "\"capabilities\":[\"observe\",\"act\"],\"types\":[\"com.example.ci.run\"]}",
                        null);
                assertThat(created.status()).as(created.body()).isEqualTo(201);
                String owner = created.json().get("owner_token").asText();
                Http.Response published = http.post(
                        "/mp/v0/monitors/" + monitor + "/observations",
                        "{\"type\":\"com.example.ci.run\",\"subject\":\"build-1\",\"actor\":\"probe:ci\","
                                + "\"tier\":\"measured\",\"origin\":\"probe\",\"data\":{\"status\":\"failed\"}}",
                        owner);
                assertThat(published.status()).as(published.body()).isEqualTo(201);
                Http.Response subscribed = http.post(
                        "/mp/v0/subscriptions",
                        "{\"monitor\":\"" + monitor
                                + "\",\"subscriber\":\"agent:acl\",\"capabilities\":[\"observe\",\"act\"]}",
                        owner);
                assertThat(subscribed.status()).as(subscribed.body()).isEqualTo(201);
                String subscription = subscribed.json().at("/subscription/id").asText();
                String reader = subscribed.json().get("token").asText();
                Http.Response pulled = http.get("/mp/v0/subscriptions/" + subscription + "/pull", reader);
                assertThat(pulled.status()).as(pulled.body()).isEqualTo(200);
                assertThat(pulled.json().get("observations").size()).isEqualTo(3);
                Http.Response acked = http.post(
                        "/mp/v0/subscriptions/" + subscription + "/ack",
                        "{\"cursor\":" + pulled.json().get("next").asLong() + "}",
                        reader);
                assertThat(acked.status()).as(acked.body()).isEqualTo(200);
                // Decided by the leases service, which wrote its reply, the lease table and a row in the log.
                Http.Response claimed = http.post(
                        "/mp/v0/subscriptions/" + subscription + "/leases/claim", "{\"subject\":\"build-1\"}", reader);
                assertThat(claimed.status()).as(claimed.body()).isEqualTo(201);
                // Folded by the projector, whose fold loop is a member of its group reading the monitor's log, into
                // mp.state (where it also reads the state it takes a log up from).
                await("the projector folded the log")
                        .atMost(DEADLINE)
                        .untilAsserted(() -> assertThat(http.get("/mp/v0/monitors/" + monitor + "/state", null)
                                        .json()
                                        .at("/counters/observations")
                                        .asLong(0))
                                .isGreaterThanOrEqualTo(4));
                Http.Response retention = http.post(
                        "/mp/v0/monitors/" + monitor + "/update",
                        "{\"patch\":{\"limits\":{\"retention_seconds\":86400}}}",
                        owner);
                assertThat(retention.status()).as(retention.body()).isEqualTo(200);
                Http.Response compacted = compact(http, monitor, 1);
                assertThat(compacted.status()).as(compacted.body()).isEqualTo(200);

                // A bridged monitor: its records reach its log through the bridge's group, transactions, lease-subject
                // marks and dead letters, with only the ACLs above.
                String bridgedId = "acl-bridged-" + Long.toHexString(System.nanoTime());
                Http.Response bridgedCreated = http.post(
                        "/mp/v0/monitors",
                        "{\"id\":\"" + bridgedId + "\",\"name\":\"ACL bridged\",\"horizon\":\"minute\","
                                + "\"visibility\":\"public\",\"capabilities\":[\"observe\"],"
                                + "\"types\":[\"com.example.order\"],\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:"
                                + source + "\",\"settings\":{\"format\":\"json\",\"type\":\"/kind\","
                                + "\"subject\":\"/order\",\"start\":\"earliest\"}}}",
                        null);
                assertThat(bridgedCreated.status()).as(bridgedCreated.body()).isEqualTo(201);
                String bridgedOwner = bridgedCreated.json().get("owner_token").asText();
                Http.Response bridgedSubscribed = http.post(
                        "/mp/v0/subscriptions",
                        "{\"monitor\":\"" + bridgedId + "\",\"subscriber\":\"agent:acl-bridged\","
                                + "\"capabilities\":[\"observe\"]}",
                        bridgedOwner);
                assertThat(bridgedSubscribed.status())
                        .as(bridgedSubscribed.body())
                        .isEqualTo(201);
                Bridged bridged = new Bridged(
                        http,
                        bridgedSubscribed.json().at("/subscription/id").asText(),
                        bridgedSubscribed.json().get("token").asText());
                try (KafkaProducer<byte[], byte[]> p = superUserProducer(kafka)) {
                    for (int i = 1; i <= 3; i++) {
                        p.send(order(source, i)).get(60, TimeUnit.SECONDS);
                    }
                    // A record that is not JSON at all: dead-lettered, in the same transactions.
                    p.send(new ProducerRecord<>(source, 0, null, new byte[] {(byte) 0xff, 0}))
                            .get(60, TimeUnit.SECONDS);
                }
                await("the bridge wrote the source's records into the monitor's log")
                        .atMost(DEADLINE)
                        .untilAsserted(
                                () -> assertThat(bridged.subjects()).containsExactlyInAnyOrder("o-1", "o-2", "o-3"));
                await("the bridge dead-lettered the record that is not JSON")
                        .atMost(DEADLINE)
                        .untilAsserted(
                                () -> assertThat(deadLetters(kafka, bridgedId)).isEqualTo(1));

                Http management = new Http(server.managementUri());
                await("every role is ready").atMost(DEADLINE).untilAsserted(() -> {
                    Http.Response ready = management.get(Probes.READY_PATH, null);
                    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
                });
                // The projector's footprint is what the ACLs grant it: its fold loop is a static member of its group
                // and holds the monitor's log, and it has made no topic of its own (the Streams projector's changelog
                // and repartition topic, mp-projector-*) and joined no other group (the Streams app's mp-projector).
                projectorFootprint(admin, monitor);

                // Again after a restart, when the topics, the groups and the leases app's internal topics exist, and
                // the projector takes the log up from its state in mp.state.
                server.stop();
                server.restart();
                Http.Response again = http.post(
                        "/mp/v0/monitors/" + monitor + "/observations",
                        "{\"type\":\"com.example.ci.run\",\"subject\":\"build-2\",\"actor\":\"probe:ci\","
                                + "\"tier\":\"measured\",\"origin\":\"probe\",\"data\":{\"status\":\"passed\"}}",
                        owner);
                assertThat(again.status()).as(again.body()).isEqualTo(201);
                Http.Response claimedAgain = http.post(
                        "/mp/v0/subscriptions/" + subscription + "/leases/claim", "{\"subject\":\"build-2\"}", reader);
                assertThat(claimedAgain.status()).as(claimedAgain.body()).isEqualTo(201);
                await("the projector folded the new observation")
                        .atMost(DEADLINE)
                        .untilAsserted(() -> assertThat(http.get("/mp/v0/monitors/" + monitor + "/state", null)
                                        .json()
                                        .at("/counters/observations")
                                        .asLong(0))
                                .isGreaterThanOrEqualTo(6));
                // The bridge goes on from its group's committed offsets, each record once.
                try (KafkaProducer<byte[], byte[]> p = superUserProducer(kafka)) {
                    for (int i = 4; i <= 5; i++) {
                        p.send(order(source, i)).get(60, TimeUnit.SECONDS);
                    }
                }
                await("the bridge wrote the records sent after the restart, and none twice")
                        .atMost(DEADLINE)
                        .untilAsserted(() -> assertThat(bridged.subjects())
                                .containsExactlyInAnyOrder("o-1", "o-2", "o-3", "o-4", "o-5"));
                await("every role is ready again").atMost(DEADLINE).untilAsserted(() -> {
                    Http.Response ready = management.get(Probes.READY_PATH, null);
                    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
                });
                JsonNode data = management.get(Probes.READY_PATH, null).json().at("/checks/0/data");
                assertThat(server.log())
                        .as("nothing of the server was refused by the broker (%s)", data)
                        .doesNotContainIgnoringCase("AuthorizationException")
                        .doesNotContainIgnoringCase("not authorized")
                        .doesNotContain(user.password());

                assertThat(bridged.subjects())
                        .as("each source record bridged once")
                        .containsExactlyInAnyOrder("o-1", "o-2", "o-3", "o-4", "o-5");

                // Without its Delete grant on the logs, admin/compact (deleteRecords) is refused: the ACLs are what
                // allows it, and the run above would have failed on any grant it needs.
                AclBinding delete = bindings.stream()
                        .filter(b -> b.pattern().resourceType() == ResourceType.TOPIC
                                && b.pattern().name().equals(Topics.OBS_PREFIX)
                                && b.entry().operation() == AclOperation.DELETE)
                        .findFirst()
                        .orElseThrow();
                admin.deleteAcls(List.of(delete.toFilter())).all().get(60, TimeUnit.SECONDS);
                await("the broker refuses deleteRecords without the grant")
                        .atMost(DEADLINE)
                        .untilAsserted(() -> {
                            // Each try asks for more than the floor, so that a deleteRecords is sent every time.
                            Http.Response refused = compact(http, monitor, 3);
                            assertThat(refused.status()).as(refused.body()).isNotEqualTo(200);
                        });

                // Without the overlay's Read on the source, the bridge's consumer is refused: that grant is what lets
                // the bridge read the organisation's topic.
                admin.deleteAcls(bindings(sourceAcls).stream()
                                .map(AclBinding::toFilter)
                                .toList())
                        .all()
                        .get(60, TimeUnit.SECONDS);
                await("the broker refuses the bridge's consumer the source without the grant")
                        .atMost(DEADLINE)
                        .untilAsserted(() -> assertThat(server.log())
                                .contains("bridge: monitor " + bridgedId)
                                .contains("TopicAuthorizationException"));
            }
        }
    }

    /**
     * The projector as the broker sees it: the group {@link ProjectorConfig#GROUP_ID} with one static member (the one
     * fold loop of the process) assigned the monitor's log, no other group or topic named after it.
     */
    private static void projectorFootprint(Admin admin, String monitor) throws Exception {
        await("the projector's fold loop holds the monitor's log in its group")
                .atMost(DEADLINE)
                .untilAsserted(() -> {
                    ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(ProjectorConfig.GROUP_ID))
                            .all()
                            .get(30, TimeUnit.SECONDS)
                            .get(ProjectorConfig.GROUP_ID);
                    assertThat(group.members()).hasSize(1);
                    MemberDescription member = group.members().iterator().next();
                    assertThat(member.groupInstanceId()).as("a static member").isPresent();
                    assertThat(member.assignment().topicPartitions())
                            .contains(new TopicPartition(Topics.obs(monitor), 0));
                });
        Set<String> groups = new TreeSet<>();
        admin.listGroups().all().get(30, TimeUnit.SECONDS).forEach(g -> groups.add(g.groupId()));
        assertThat(groups)
                .filteredOn(g -> g.startsWith(ProjectorConfig.APPLICATION_ID))
                .containsExactly(ProjectorConfig.GROUP_ID);
        assertThat(admin.listTopics(new ListTopicsOptions().listInternal(true))
                        .names()
                        .get(30, TimeUnit.SECONDS))
                .noneMatch(t -> t.startsWith(ProjectorConfig.APPLICATION_ID));
    }

    /** The bridged monitor's log, read through a subscription from its start. */
    private record Bridged(Http http, String subscription, String token) {
        /** The subjects of the bridged observations in the whole log, in log order. */
        List<String> subjects() {
            List<String> subjects = new ArrayList<>();
            long cursor = 1;
            while (true) {
                Http.Response page =
                        http.get("/mp/v0/subscriptions/" + subscription + "/pull?limit=200&cursor=" + cursor, token);
                assertThat(page.status()).as(page.body()).isEqualTo(200);
                JsonNode observations = page.json().get("observations");
                if (observations.isEmpty()) {
                    return subjects;
                }
                observations.forEach(o -> {
                    if (o.get("type").asText().equals("com.example.order")) {
                        subjects.add(o.get("subject").asText());
                    }
                });
                cursor = page.json().get("next").asLong();
            }
        }
    }

    private static ProducerRecord<byte[], byte[]> order(String topic, int n) {
        String value = "{\"kind\":\"com.example.order\",\"order\":\"o-" + n + "\",\"total\":" + n + "}";
        return new ProducerRecord<>(
                topic, ("k" + n).getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
    }

    /** The committed dead letters of a monitor, read as the broker's own user: no role of the server reads them. */
    private static int deadLetters(ScramKafka kafka, String monitorId) {
        Map<String, Object> c = new HashMap<>(kafka.clientProperties());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.BRIDGE_DEAD_LETTERS).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            int found = 0;
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.key() != null && new String(r.key(), StandardCharsets.UTF_8).equals(monitorId)) {
                        found++;
                    }
                }
            }
            return found;
        }
    }

    /** A plain producer of the organisation's, as the broker's own (super) user. */
    private static KafkaProducer<byte[], byte[]> superUserProducer(ScramKafka kafka) {
        Map<String, Object> p = new HashMap<>(kafka.clientProperties());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static Http.Response compact(Http http, String monitor, long uptoSeq) {
        return http.post(
                "/mp/v0/admin/compact", "{\"monitor\":\"" + monitor + "\",\"upto_seq\":" + uptoSeq + "}", ADMIN_TOKEN);
    }

    /** The KafkaUser's ACLs as Kafka's bindings for its principal, as Strimzi's User Operator creates them. */
    static List<AclBinding> bindings(List<Access.Acl> acls) {
        List<AclBinding> out = new ArrayList<>();
        for (Access.Acl acl : acls) {
            ResourceType type = switch (acl.type()) {
                case "topic" -> ResourceType.TOPIC;
                case "group" -> ResourceType.GROUP;
                case "transactionalId" -> ResourceType.TRANSACTIONAL_ID;
                case "cluster" -> ResourceType.CLUSTER;
                default -> throw new AssertionError("unknown resource type " + acl.type());
            };
            ResourcePattern pattern =
                    new ResourcePattern(type, acl.name(), acl.prefix() ? PatternType.PREFIXED : PatternType.LITERAL);
            for (String op : acl.operations()) {
                AclOperation operation = AclOperation.valueOf(
                        op.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT));
                out.add(new AclBinding(
                        pattern, new AccessControlEntry("User:" + USER, "*", operation, AclPermissionType.ALLOW)));
            }
        }
        return out;
    }
}
