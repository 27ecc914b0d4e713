package io.monitorbackbone.gateway.service;

/** The services one gateway process runs, wired once the Kafka side is ready. */
public record Services(MonitorService monitors, PublishService publish, SubscriptionService subscriptions,
                       DeliveryService delivery, AdminService admin, LeaseService leases) {
}
