package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Limits;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * How a JSON-RPC batch uses the worker pool every request shares: one call at a time, so a batch never has more than
 * one task queued on it ahead of other clients' requests; and a batch past the limit runs nothing.
 */
class RpcBatchTest {
    /** The shared pool, run by hand: what is queued on it is what other requests would wait behind. */
    private static final class ManualPool implements Executor {
        final Queue<Runnable> queued = new ArrayDeque<>();
        int mostQueued;

        @Override
        public void execute(Runnable task) {
            queued.add(task);
            mostQueued = Math.max(mostQueued, queued.size());
        }

        void drain() {
            for (Runnable next; (next = queued.poll()) != null; ) {
                next.run();
            }
        }
    }

    /** No services: each call fails inside its task, which is all this test needs from it. */
    private static Rpc withoutServices(Executor pool) {
        return new Rpc(null, null, null, null, null, pool::execute);
    }

    @Test
    void aBatchQueuesOneCallAtATimeOnTheSharedPool() {
        ManualPool pool = new ManualPool();
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < Limits.MAX_BATCH_CALLS; i++) {
            batch.append(i == 0 ? "" : ",")
                    .append("{\"jsonrpc\":\"2.0\",\"id\":")
                    .append(i)
                    .append(",\"method\":\"feeds/ack\",\"params\":{\"subscription\":\"s\",\"cursor\":1}}");
        }
        CompletableFuture<JsonNode> answer =
                withoutServices(pool).handle(batch.append(']').toString().getBytes(StandardCharsets.UTF_8), "token");

        pool.drain();

        assertThat(pool.mostQueued)
                .as("tasks of one batch queued at once on the shared pool")
                .isEqualTo(1);
        assertThat(answer).isCompleted();
        JsonNode out = answer.join();
        assertThat(out.size()).isEqualTo(Limits.MAX_BATCH_CALLS);
        for (int i = 0; i < out.size(); i++) {
            assertThat(out.get(i).get("id").asInt()).isEqualTo(i);
            assertThat(out.get(i).has("error")).isTrue();
        }
    }

    @Test
    void aBatchPastTheLimitRunsNothing() {
        ManualPool pool = new ManualPool();
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i <= Limits.MAX_BATCH_CALLS; i++) {
            batch.append(i == 0 ? "" : ",")
                    .append("{\"jsonrpc\":\"2.0\",\"id\":")
                    .append(i)
                    .append(",\"method\":\"feeds/ack\",\"params\":{\"subscription\":\"s\",\"cursor\":1}}");
        }
        CompletableFuture<JsonNode> answer =
                withoutServices(pool).handle(batch.append(']').toString().getBytes(StandardCharsets.UTF_8), "token");

        assertThat(pool.queued).isEmpty();
        assertThat(answer).as("answered without running a call").isCompleted();
        JsonNode out = answer.join();
        assertThat(out.isObject()).isTrue();
        assertThat(out.at("/error/data/code").asText()).isEqualTo("TOO_LARGE");
        assertThat(out.at("/error/data/max_batch_calls").asInt()).isEqualTo(Limits.MAX_BATCH_CALLS);
    }
}
