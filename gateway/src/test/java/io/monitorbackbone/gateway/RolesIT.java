package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.leases.LeaseApp;
import io.monitorbackbone.projector.ProjectorConfig;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MP_INSTANCE_ID and MP_ROLES with real processes on one broker: each process's hosted Streams instances are members
 * under its own id, and a gateway-only process is served by the projector and leases of another process.
 */
class RolesIT {
    private static final Duration GENEROUS = Duration.ofSeconds(90);

    private record Worker(String subscription, String token) {}

    @Test
    void twoProcessesWithTheirOwnInstanceIdsBothStayInTheLeaseAndProjectorGroups(
            @TempDir Path dataA, @TempDir Path dataB) throws Exception {
        try (ServerProcess first = ServerProcess.builder()
                        .env("MP_DATA", dataA.toString())
                        .env("MP_INSTANCE_ID", "alpha")
                        .start();
                ServerProcess second = ServerProcess.builder()
                        .env(first.sharedBrokerEnv())
                        .env("MP_DATA", dataB.toString())
                        .env("MP_INSTANCE_ID", "beta")
                        .start();
                Admin admin = admin(first)) {
            Http a = new Http(first.baseUri());
            Http b = new Http(second.baseUri());
            await("both processes are members of both groups under their ids")
                    .atMost(GENEROUS)
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> instances(admin, LeaseApp.APPLICATION_ID).equals(Set.of("alpha", "beta"))
                            && instances(admin, ProjectorConfig.GROUP_ID).equals(Set.of("alpha", "beta")));

            Walk walkA = new Walk(a);
            Walk.Monitor m = walkA.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
            for (int round = 0; round < 12; round++) {
                walkA.publish(m, "a-" + round);
                walkA.publish(m, "b-" + round);
            }
            Worker viaA = worker(a, m, "worker-a");
            await("the second process sees the monitor")
                    .atMost(GENEROUS)
                    .until(() -> b.get("/mp/v0/monitors/" + m.id(), null).status() == 200);
            Worker viaB = worker(b, m, "worker-b");
            // Over a while, both keep answering claims and both stay members: neither took the other's membership.
            for (int round = 0; round < 12; round++) {
                for (Map.Entry<Http, Worker> side : Map.of(a, viaA, b, viaB).entrySet()) {
                    String subject = "{\"subject\":\"" + (side.getKey() == a ? "a-" : "b-") + round + "\"}";
                    Http.Response claimed = lease(side.getKey(), side.getValue(), "claim", subject);
                    assertThat(claimed.status())
                            .as("round %d: %s", round, claimed.body())
                            .isEqualTo(201);
                    assertThat(lease(side.getKey(), side.getValue(), "release", subject)
                                    .status())
                            .as("round %d", round)
                            .isEqualTo(200);
                }
                assertThat(instances(admin, LeaseApp.APPLICATION_ID))
                        .as("round %d", round)
                        .containsExactlyInAnyOrder("alpha", "beta");
            }
            assertThat(instances(admin, ProjectorConfig.GROUP_ID)).containsExactlyInAnyOrder("alpha", "beta");
            assertThat(first.isAlive() && second.isAlive()).isTrue();
            // The leases' state directories are the instance's, so their Streams process ids and transactional ids
            // are too; the projector keeps no state on disk (mp.state is its checkpoint).
            assertThat(dataA.resolve("streams/leases-alpha")).isDirectory();
            assertThat(dataB.resolve("streams/leases-beta")).isDirectory();
            assertThat(dataA.resolve("streams/projector-alpha")).doesNotExist();
        }
    }

    @Test
    void ofTwoLiveProcessesGivenOneInstanceIdTheFirstStopsSayingWhyAndTheOtherServes(
            @TempDir Path gatewayData, @TempDir Path dataA, @TempDir Path dataB) {
        try (ServerProcess gateway = ServerProcess.builder()
                .env("MP_DATA", gatewayData.toString())
                .env("MP_ROLES", "gateway")
                .start()) {
            String ready = "monitor-backbone ready: roles projector,leases, instance twin";
            Http http = new Http(gateway.baseUri());
            Walk.Monitor m =
                    new Walk(http).monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
            new Walk(http).publish(m, "job-1");
            Worker w = worker(http, m, "worker");
            try (ServerProcess first = ServerProcess.builder()
                    .env(gateway.sharedBrokerEnv())
                    .env("MP_DATA", dataA.toString())
                    .env("MP_ROLES", "projector,leases")
                    .env("MP_INSTANCE_ID", "twin")
                    .readyWhenLogged(ready)
                    .start()) {
                assertThat(lease(http, w, "claim", "{\"subject\":\"job-1\"}").status())
                        .isEqualTo(201);
                try (ServerProcess second = ServerProcess.builder()
                        .env(gateway.sharedBrokerEnv())
                        .env("MP_DATA", dataB.toString())
                        .env("MP_ROLES", "projector,leases")
                        .env("MP_INSTANCE_ID", "twin")
                        .readyWhenLogged(ready)
                        .start()) {
                    await("the first of the twins stops").atMost(GENEROUS).until(() -> !first.isAlive());

                    assertThat(first.stop()).as("its exit status").isEqualTo(1);
                    // mp-leases or mp-projector-logs, whichever group fenced it first.
                    assertThat(first.log())
                            .containsPattern("monitor-backbone stops: another process joined the Kafka group"
                                    + " mp-(leases|projector-logs) with this process's MP_INSTANCE_ID 'twin' and took its membership; give every"
                                    + " process its own MP_INSTANCE_ID");
                    Http.Response renewed = lease(http, w, "renew", "{\"subject\":\"job-1\"}");
                    assertThat(renewed.status())
                            .as("the other twin decides: %s", renewed.body())
                            .isEqualTo(200);
                    assertThat(second.isAlive()).isTrue();
                }
            }
        }
    }

    @Test
    void aGatewayAloneIsServedByAProjectorAndLeasesProcessElsewhere(@TempDir Path gatewayData, @TempDir Path workerData)
            throws Exception {
        try (ServerProcess gateway = ServerProcess.builder()
                .env("MP_DATA", gatewayData.toString())
                .env("MP_ROLES", "gateway")
                .env("MP_TAIL_CACHE_ENTRIES", "0")
                .start()) {
            Http http = new Http(gateway.baseUri());
            Walk walk = new Walk(http);
            Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
            // Started after the gateway: a lease call waits in its topic for the leases instance to start.
            try (ServerProcess worker = ServerProcess.builder()
                            .env(gateway.sharedBrokerEnv())
                            .env("MP_DATA", workerData.toString())
                            .env("MP_ROLES", "projector,leases")
                            .env("MP_INSTANCE_ID", "worker-1")
                            .readyWhenLogged("monitor-backbone ready: roles projector,leases, instance worker-1")
                            .start();
                    Admin admin = admin(gateway)) {
                // Its ready line waits for its Streams apps: a lease command sent now is decided, not left to time out.
                Http.Response health = new Http(worker.managementUri()).get(Probes.READY_PATH, null);
                JsonNode ready = HealthMetricsIT.check(health, "mp-ready").path("data");
                assertThat(ready.path("leases").asText()).as(health.body()).isEqualTo("RUNNING");
                assertThat(ready.path("projector").asText()).as(health.body()).isEqualTo("RUNNING");
                for (int i = 0; i < 5; i++) {
                    walk.publish(m, "job-" + i);
                }

                // The fold is the other process's: mp.state gets the monitor, and /state is exact.
                await("the projector elsewhere folds the monitor into mp.state")
                        .atMost(GENEROUS)
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> StateIT.projected(gateway.kafkaClientProperties(), m.id())
                                        .observations()
                                == 6);
                JsonNode state = walk.state(m).json();
                assertThat(state.get("as_of_seq").asLong()).isEqualTo(6);
                assertThat(state.at("/counters/observations").asLong()).isEqualTo(6);

                Worker w = worker(http, m, "worker");
                Http.Response claimed = lease(http, w, "claim", "{\"subject\":\"job-1\"}");
                assertThat(claimed.status()).as(claimed.body()).isEqualTo(201);
                Http.Response again = lease(http, w, "claim", "{\"subject\":\"job-1\"}");
                assertThat(again.json().get("idempotent").asBoolean())
                        .as(again.body())
                        .isTrue();

                // Each role ran where it was asked to, and the worker binds no HTTP port.
                assertThat(instances(admin, LeaseApp.APPLICATION_ID)).containsExactly("worker-1");
                assertThat(instances(admin, ProjectorConfig.GROUP_ID)).containsExactly("worker-1");
                assertThat(Files.exists(gatewayData.resolve("streams")))
                        .as("the gateway hosts no Streams app")
                        .isFalse();
                assertThat(listening(worker.port()))
                        .as("the worker's HTTP port")
                        .isFalse();
                assertThat(gateway.log()).contains("(roles gateway, instance ");
            }
        }
    }

    private static Worker worker(Http http, Walk.Monitor m, String name) {
        Http.Response r = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:" + name
                        + "\",\"capabilities\":[\"observe\",\"act\"]}",
                m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Worker(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
    }

    private static Http.Response lease(Http http, Worker w, String action, String body) {
        return http.post("/mp/v0/subscriptions/" + w.subscription() + "/leases/" + action, body, w.token());
    }

    /** An admin client of the server's embedded broker, logged in as the server's own user. */
    private static Admin admin(ServerProcess server) {
        return Admin.create(Map.copyOf(server.kafkaClientProperties()));
    }

    /** The group's static members, by the instance id of their process (Streams appends a thread's number). */
    private static Set<String> instances(Admin admin, String group) throws Exception {
        Set<String> out = new TreeSet<>();
        for (MemberDescription member : admin.describeConsumerGroups(List.of(group))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(group)
                .members()) {
            out.add(member.groupInstanceId()
                    .map(id -> id.replaceFirst("-\\d+$", ""))
                    .orElse("(dynamic " + member.consumerId() + ")"));
        }
        return out;
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
