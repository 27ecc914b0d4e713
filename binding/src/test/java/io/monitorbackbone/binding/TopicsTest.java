package io.monitorbackbone.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TopicsTest {
    @Test
    void aMonitorsLogIsNamedAfterItAndBack() {
        String topic = Topics.obs("ci.build-1");

        assertThat(topic).isEqualTo("mp.obs.ci.build-1");
        assertThat(Topics.isObs(topic)).isTrue();
        assertThat(Topics.monitorOf(topic)).isEqualTo("ci.build-1");
    }

    @Test
    void thePatternMatchesEveryMonitorsLogAndNoTable() {
        assertThat(Topics.OBS.matcher(Topics.obs("ci")).matches()).isTrue();
        for (String table : List.of(
                Topics.MONITORS,
                Topics.SUBSCRIPTIONS,
                Topics.CURSORS,
                Topics.SWEEPER,
                Topics.STATE,
                Topics.LEASE_COMMANDS,
                Topics.LEASE_REPLIES,
                Topics.LEASES,
                Topics.LEASE_SUBJECTS,
                Topics.OBS_PREFIX)) {
            assertThat(Topics.OBS.matcher(table).matches()).as(table).isFalse();
            assertThat(Topics.isObs(table)).as(table).isFalse();
        }
    }

    @Test
    void aTopicThatIsNoMonitorsLogNamesNoMonitor() {
        assertThatThrownBy(() -> Topics.monitorOf(Topics.MONITORS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Topics.MONITORS);
    }

    @Test
    void theNamesAreTheOnesTheDocsAndTheDataDirectoryShow() {
        assertThat(List.of(
                        Topics.MONITORS,
                        Topics.SUBSCRIPTIONS,
                        Topics.CURSORS,
                        Topics.SWEEPER,
                        Topics.STATE,
                        Topics.LEASE_COMMANDS,
                        Topics.LEASE_REPLIES,
                        Topics.LEASES,
                        Topics.LEASE_SUBJECTS))
                .containsExactly(
                        "mp.monitors",
                        "mp.subscriptions",
                        "mp.cursors",
                        "mp.sweeper",
                        "mp.state",
                        "mp.lease-commands",
                        "mp.lease-replies",
                        "mp.leases",
                        "mp.lease-subjects");
    }
}
