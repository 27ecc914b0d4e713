package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.testsupport.Http;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A lease answer's {@code seq} names its own row, and that row is readable the moment the answer arrives: many workers
 * complete and reject at once, and each pulls its answer's seq straight away (issue 12, item 4).
 */
class LeaseAnswerRowIT {
    private static final int WORKERS = 8;
    private static final int SUBJECTS_EACH = 15;

    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    private record Worker(String subscription, String token) {}

    @Test
    void everyLeaseAnswerCarriesTheSeqOfItsOwnReadableRow() throws Exception {
        List<Worker> workers = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            // A monitor each: one commit of the leases service then spans many logs, and Kafka marks them one by one.
            Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
            for (int s = 0; s < SUBJECTS_EACH; s++) {
                walk.publish(m, "job-" + w + "-" + s);
            }
            Http.Response r = http.post(
                    "/mp/v0/subscriptions",
                    "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:w" + w
                            + "\",\"capabilities\":[\"observe\",\"act\"]}",
                    m.ownerToken());
            assertThat(r.status()).as(r.body()).isEqualTo(201);
            workers.add(new Worker(
                    r.json().at("/subscription/id").asText(),
                    r.json().get("token").asText()));
        }

        // The race was seen on a busy machine: busy threads here make a broker thread's pause between two partitions'
        // commit markers likely (they compete with the test broker when it runs in this JVM, and with the server).
        AtomicBoolean busy = new AtomicBoolean(true);
        List<Thread> hogs = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors() * 2; i++) {
            Thread hog = new Thread(
                    () -> {
                        long x = 0;
                        while (busy.get()) {
                            x += System.nanoTime() % 7;
                        }
                        if (x == 42) {
                            System.out.print("");
                        }
                    },
                    "lease-answer-hog-" + i);
            hog.setDaemon(true);
            hog.start();
            hogs.add(hog);
        }
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                int n = w;
                done.add(pool.submit(() -> work(workers.get(n), n)));
            }
            for (Future<Integer> f : done) {
                assertThat(f.get(5, TimeUnit.MINUTES)).isEqualTo(2 * SUBJECTS_EACH);
            }
        } finally {
            busy.set(false);
            pool.shutdownNow();
            for (Thread hog : hogs) {
                hog.join();
            }
        }
    }

    /**
     * The race made certain: a transaction this test holds open on the monitor's log keeps its last stable offset
     * below the lease row, so the leases service's reply is readable while its row is not, as when Kafka marks the
     * reply's partition committed before the row's. The answer must not name a seq until the row can be read.
     */
    @Test
    void aLeaseAnswerWaitsUntilItsRowIsReadable() throws Exception {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
        walk.publish(m, "held");
        Http.Response r = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:held\","
                        + "\"capabilities\":[\"observe\",\"act\"]}",
                m.ownerToken());
        Worker w = new Worker(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
        claim(w, "held");

        java.util.Map<String, Object> common =
                java.util.Map.of("bootstrap.servers", io.monitorbackbone.testsupport.TestKafka.bootstrapServers());
        java.util.Map<String, Object> c = new java.util.HashMap<>(common);
        c.put("isolation.level", "read_committed");
        java.util.Map<String, Object> p = new java.util.HashMap<>(common);
        p.put("transactional.id", "lease-answer-it-" + System.nanoTime());
        try (var replies = new org.apache.kafka.clients.consumer.KafkaConsumer<>(
                        c,
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer());
                var holder = new org.apache.kafka.clients.producer.KafkaProducer<>(
                        p,
                        new org.apache.kafka.common.serialization.ByteArraySerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            List<org.apache.kafka.common.TopicPartition> parts = replies.partitionsFor(Topics.LEASE_REPLIES).stream()
                    .map(i -> new org.apache.kafka.common.TopicPartition(i.topic(), i.partition()))
                    .toList();
            replies.assign(parts);
            replies.seekToEnd(parts);
            parts.forEach(replies::position);
            holder.initTransactions();
            holder.beginTransaction();
            holder.send(new org.apache.kafka.clients.producer.ProducerRecord<>(Topics.obs(m.id()), new byte[0]))
                    .get(30, TimeUnit.SECONDS);

            java.util.concurrent.CompletableFuture<Http.Response> answer =
                    java.util.concurrent.CompletableFuture.supplyAsync(
                            () -> lease(w, "complete", "{\"subject\":\"held\",\"outcome\":\"fixed\"}"));
            org.awaitility.Awaitility.await("the leases service's reply is committed")
                    .atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> !replies.poll(java.time.Duration.ofMillis(200)).isEmpty());
            try {
                // A gateway that answers without waiting for the row answers now; one that waits does not.
                org.awaitility.Awaitility.await()
                        .atMost(java.time.Duration.ofSeconds(5))
                        .until(answer::isDone);
            } catch (org.awaitility.core.ConditionTimeoutException stillWaiting) {
                // expected of a gateway that waits for the row
            }
            holder.abortTransaction();
            checkRow(w, "held", "complete", answer.get(60, TimeUnit.SECONDS));
        }
    }

    /** Claims, rejects, claims again and completes each of this worker's subjects; returns how many answers it checked. */
    private int work(Worker w, int n) {
        int checked = 0;
        for (int s = 0; s < SUBJECTS_EACH; s++) {
            String subject = "job-" + n + "-" + s;
            claim(w, subject);
            checkRow(
                    w, subject, "reject", lease(w, "reject", "{\"subject\":\"" + subject + "\",\"reason\":\"again\"}"));
            checked++;
            claim(w, subject);
            checkRow(
                    w,
                    subject,
                    "complete",
                    lease(w, "complete", "{\"subject\":\"" + subject + "\",\"outcome\":\"fixed\"}"));
            checked++;
        }
        return checked;
    }

    private void claim(Worker w, String subject) {
        Http.Response claimed = lease(w, "claim", "{\"subject\":\"" + subject + "\"}");
        assertThat(claimed.status()).as(claimed.body()).isEqualTo(201);
    }

    private void checkRow(Worker w, String subject, String action, Http.Response answer) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        JsonNode seq = answer.json().get("seq");
        assertThat(seq)
                .as("the %s answer for %s carries a seq: %s", action, subject, answer.body())
                .isNotNull();
        assertThat(seq.isIntegralNumber())
                .as("the %s answer for %s carries a seq: %s", action, subject, answer.body())
                .isTrue();
        JsonNode page = walk.pull(new Walk.Reader(w.subscription(), w.token()), "?cursor=" + seq.asLong() + "&limit=1")
                .json();
        JsonNode row = page.at("/observations/0");
        assertThat(row.isMissingNode())
                .as("the row at seq %d is readable at once: %s", seq.asLong(), page)
                .isFalse();
        assertThat(row.get("id").asText()).isEqualTo(String.valueOf(seq.asLong()));
        assertThat(row.get("type").asText()).isEqualTo("ai.mentu.monitor.lease");
        assertThat(row.get("subject").asText()).isEqualTo(subject);
        assertThat(row.at("/data/payload/action").asText()).isEqualTo(action);
        assertThat(row.at("/data/payload/subscription").asText()).isEqualTo(w.subscription());
    }

    private Http.Response lease(Worker w, String action, String body) {
        return http.post("/mp/v0/subscriptions/" + w.subscription() + "/leases/" + action, body, w.token());
    }
}
