package io.monitorbackbone.gateway;

import static org.awaitility.Awaitility.await;

import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several bridge instances under load (docs/adr/0015-bridge.md): three bridge-only processes on one broker share a
 * monitor's source of six partitions through the monitor's consumer group; one is killed -9 in the middle of the stream
 * and not started again. The two left take its partitions over, and the monitor's log holds exactly one observation per
 * source record: no ce_id twice, no offset missing, each key's records in the order they were sent.
 */
class BridgeSpreadIT {
    private static final Duration GENEROUS = Duration.ofSeconds(180);
    private static final int PARTITIONS = 6;
    private static final int BEFORE_KILL = 3000;
    private static final int AFTER_KILL = 2000;
    private static final int KEYS = 24;
    private static final List<String> INSTANCES = List.of("spread-a", "spread-b", "spread-c");

    @Test
    void threeBridgesShareASourceAndAKillNineOfOneNeitherLosesNorDoublesARecord(@TempDir Path data) throws Exception {
        try (ServerProcess gateway = ServerProcess.builder()
                .env("MP_DATA", Files.createDirectories(data.resolve("gateway")).toString())
                .env("MP_ROLES", "gateway,projector,leases")
                .start()) {
            Map<String, Object> client = new HashMap<>(gateway.kafkaClientProperties());
            String bootstrap = (String) client.get("bootstrap.servers");
            String topic = BridgeIT.newTopic(bootstrap, client, PARTITIONS);
            Walk.Monitor m = new Walk(new Http(gateway.baseUri())).monitorWith(BridgedTicks.monitorBody(topic));

            // The three start side by side: one after the other would take three JVM starts on a loaded machine.
            List<CompletableFuture<ServerProcess>> starting = new ArrayList<>();
            for (String instance : INSTANCES) {
                Path dir = Files.createDirectories(data.resolve(instance));
                starting.add(CompletableFuture.supplyAsync(() -> ServerProcess.builder()
                        .env(gateway.sharedBrokerEnv())
                        .env("MP_DATA", dir.toString())
                        .env("MP_ROLES", "bridge")
                        .env("MP_INSTANCE_ID", instance)
                        .readyWhenLogged("monitor-backbone ready: roles bridge")
                        .start()));
            }
            List<ServerProcess> bridges = new ArrayList<>();
            try (Admin admin = Admin.create(client);
                    BridgedTicks ticks = new BridgedTicks(client, topic, m.id(), KEYS)) {
                for (CompletableFuture<ServerProcess> s : starting) {
                    bridges.add(s.join());
                }
                String group = io.monitorbackbone.bridge.BridgeApp.GROUP_PREFIX + m.id();
                await("each of the three bridges holds partitions of the source")
                        .atMost(GENEROUS)
                        .pollInterval(Duration.ofMillis(500))
                        // The group exists only once the first bridge has joined it; until then Kafka answers
                        // GroupIdNotFoundException, which here means "not yet".
                        .ignoreExceptionsMatching(e -> e.getCause() instanceof GroupIdNotFoundException)
                        .until(() -> {
                            ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(group))
                                    .all()
                                    .get()
                                    .get(group);
                            Set<String> holding = new HashSet<>();
                            for (MemberDescription member : g.members()) {
                                if (!member.assignment().topicPartitions().isEmpty()) {
                                    INSTANCES.stream()
                                            .filter(i -> member.clientId().startsWith("mp-bridge-" + i + "-"))
                                            .forEach(holding::add);
                                }
                            }
                            return holding.size() == INSTANCES.size();
                        });

                ticks.produce(0, BEFORE_KILL);
                ticks.awaitTicks("the bridges have begun", 1);
                ServerProcess killed = bridges.get(1);
                killed.kill9();
                int atKill = ticks.awaitTicks("the log read at the kill", 0);
                ticks.produce(BEFORE_KILL, BEFORE_KILL + AFTER_KILL);
                // The killed member's partitions move to the others after its session times out, and its open
                // transaction is aborted by the broker; until then committed readers of the log wait.
                ticks.awaitTicks("every source record is bridged", BEFORE_KILL + AFTER_KILL);
                ticks.assertExactlyOnce(BEFORE_KILL + AFTER_KILL, atKill);
            } finally {
                for (CompletableFuture<ServerProcess> s : starting) {
                    // Every process that started is stopped, also when another one failed to.
                    ServerProcess p = s.exceptionally(e -> null).join();
                    if (p != null) {
                        p.close();
                    }
                }
            }
        }
    }
}
