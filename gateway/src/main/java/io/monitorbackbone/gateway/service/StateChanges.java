package io.monitorbackbone.gateway.service;

/**
 * Tells when a monitor's state may have changed, so a reader can be woken to look again. A wake-up carries no state:
 * whoever is woken reads {@code /state} (or pulls) as usual. The sources are this gateway's tail of the monitor's log,
 * the projector's folds in {@code mp.state} and cursor moves ({@code kafka.LogStateChanges}).
 */
public interface StateChanges {

    /**
     * Runs {@code listener} after each change of the monitor's state until the returned handle is closed. The
     * listener runs on the thread that saw the change and must return quickly (schedule, don't work).
     */
    Registration subscribe(String monitorId, Runnable listener);

    interface Registration extends AutoCloseable {
        @Override
        void close();
    }
}
