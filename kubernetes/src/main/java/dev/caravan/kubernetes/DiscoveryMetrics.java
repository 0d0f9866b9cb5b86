package dev.caravan.kubernetes;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import dev.caravan.policies.WorkerRole;
import dev.caravan.components.podwatch.PodWatchListener;

/**
 * Service-discovery meters (Prometheus names):
 * <ul>
 *   <li>{@code caravan_discovery_registrations_total{reason}}: workers added, by {@link RegistrationReason};</li>
 *   <li>{@code caravan_discovery_deregistrations_total{reason}}: workers drained, by {@link DeregistrationReason};</li>
 *   <li>{@code caravan_discovery_watch_restarts_total{cause}}: list+watch restarts ({@code expired} = 410 Gone,
 *       {@code error}, {@code closed}, {@code list_failed});</li>
 *   <li>{@code caravan_discovery_resyncs_total}: full pod lists reconciled (start, every restart, every resync);</li>
 *   <li>{@code caravan_discovery_conflicts_total}: ready pods not registered because a worker with the same URL and
 *       role already exists (a static worker, or a pod whose IP was reused before its old pod was drained);</li>
 *   <li>{@code caravan_discovery_workers{role}}: workers currently registered by discovery;</li>
 *   <li>{@code caravan_discovery_watching}: 1 while a watch is open, 0 while re-listing.</li>
 * </ul>
 * Every reason is pre-registered at zero, so dashboards and alerts see the series before the first event. Thread-safe.
 */
public final class DiscoveryMetrics implements PodWatchListener {

    private final MeterRegistry registry;
    private final Map<RegistrationReason, Counter> registrations = new EnumMap<>(RegistrationReason.class);
    private final Map<DeregistrationReason, Counter> deregistrations = new EnumMap<>(DeregistrationReason.class);
    private final Map<String, Counter> restarts = new ConcurrentHashMap<>();
    private final Counter resyncs;
    private final Counter conflicts;
    private final AtomicInteger watching = new AtomicInteger();

    public DiscoveryMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (RegistrationReason r : RegistrationReason.values()) {
            registrations.put(r, Counter.builder("caravan.discovery.registrations")
                    .description("Workers registered by Kubernetes service discovery, by reason")
                    .tag("reason", r.tag()).register(registry));
        }
        for (DeregistrationReason r : DeregistrationReason.values()) {
            deregistrations.put(r, Counter.builder("caravan.discovery.deregistrations")
                    .description("Discovered workers drained (removed from routing), by reason")
                    .tag("reason", r.tag()).register(registry));
        }
        for (String cause : new String[] {CAUSE_EXPIRED, CAUSE_ERROR, CAUSE_CLOSED, CAUSE_LIST_FAILED}) {
            restart(cause);
        }
        resyncs = Counter.builder("caravan.discovery.resyncs")
                .description("Full pod lists reconciled with the registry").register(registry);
        conflicts = Counter.builder("caravan.discovery.conflicts")
                .description("Ready pods not registered because their URL and role were already registered")
                .register(registry);
        Gauge.builder("caravan.discovery.watching", watching, AtomicInteger::get)
                .description("1 while the pod watch is open, 0 while re-listing").register(registry);
    }

    /** Publishes {@code caravan_discovery_workers{role}}, reading counts from {@code counter} at each scrape. */
    public void bindWorkerCount(ToIntFunction<WorkerRole> counter) {
        for (WorkerRole role : WorkerRole.values()) {
            Gauge.builder("caravan.discovery.workers", () -> counter.applyAsInt(role))
                    .description("Workers currently registered by Kubernetes service discovery")
                    .tag("role", role.wireName()).register(registry);
        }
    }

    public void registered(RegistrationReason reason) {
        registrations.get(reason).increment();
    }

    public void deregistered(DeregistrationReason reason) {
        deregistrations.get(reason).increment();
    }

    public void resynced() {
        resyncs.increment();
    }

    public void conflict() {
        conflicts.increment();
    }

    public double registrations(RegistrationReason reason) {
        return registrations.get(reason).count();
    }

    public double deregistrations(DeregistrationReason reason) {
        return deregistrations.get(reason).count();
    }

    public double watchRestarts(String cause) {
        return restart(cause).count();
    }

    @Override
    public void onWatchRestart(String cause) {
        watching.set(0);
        restart(cause).increment();
    }

    @Override
    public void onWatchEstablished() {
        watching.set(1);
    }

    private Counter restart(String cause) {
        return restarts.computeIfAbsent(cause, c -> Counter.builder("caravan.discovery.watch.restarts")
                .description("Pod list+watch restarts, by cause").tag("cause", c).register(registry));
    }
}
