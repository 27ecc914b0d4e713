package io.monitorbackbone.gateway;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;

/** The services' clock: UTC wall-clock time. Tests of the services give them a fixed one instead. */
@Singleton
public class SystemClock {
    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
