package io.monitorbackbone.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.broker.ClientCredentials;
import io.monitorbackbone.gateway.Probes;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ScramKafka;
import io.monitorbackbone.testsupport.ServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
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
                // Folded by the projector (its repartition topic and changelog) into mp.state.
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

                Http management = new Http(server.managementUri());
                await("every role is ready").atMost(DEADLINE).untilAsserted(() -> {
                    Http.Response ready = management.get(Probes.READY_PATH, null);
                    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
                });

                // Again after a restart, when the topics, the groups and the Streams apps' internal topics exist.
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

                // Without its Delete grant on the logs, admin/compact (deleteRecords) is refused: the ACLs are what
                // allows it, and the run above would have failed on any grant it needs.
                AclBinding delete = bindings.stream()
                        .filter(b -> b.pattern().resourceType() == ResourceType.TOPIC
                                && b.pattern().name().equals(io.monitorbackbone.binding.Topics.OBS_PREFIX)
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
            }
        }
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
