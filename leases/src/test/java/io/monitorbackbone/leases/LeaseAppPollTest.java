package io.monitorbackbone.leases;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.binding.PollPace;
import java.nio.file.Path;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaseAppPollTest {
    @Test
    void theStreamThreadIsAskedToWaitTheIdlePollNotTheCommitInterval(@TempDir Path state) {
        var config = LeaseApp.config(new LeaseApp.Settings("broker:9092", state, "leases-0", 3, (short) 1, 10));

        assertThat(config).containsEntry(StreamsConfig.POLL_MS_CONFIG, PollPace.IDLE_POLL_MS);
        assertThat(PollPace.IDLE_POLL_MS).isGreaterThanOrEqualTo(250);
    }
}
