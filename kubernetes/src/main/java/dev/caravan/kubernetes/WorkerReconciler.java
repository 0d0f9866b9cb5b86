package dev.caravan.kubernetes;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.fabric8.kubernetes.api.model.Pod;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.components.podwatch.PodEventType;

/**
 * Applies pod events and pod lists to the {@link WorkerRegistry}, so that the discovered workers are exactly the ready
 * pods that match a selector.
 *
 * <p>Contract:
 * <ul>
 *   <li><b>Idempotent.</b> Applying the same pod state twice changes nothing; a status heartbeat or an unrelated label
 *       edit that leaves the {@link DiscoveredWorker} equal is a no-op.</li>
 *   <li><b>Drain, never cut.</b> A pod that stops being eligible for any {@link DeregistrationReason} (not ready, not
 *       Running, selector mismatch, terminating, deleted, vanished) is removed with {@link WorkerRegistry#remove}: no
 *       new requests go to it, while requests already holding its lease finish. SGLang only removes on deletion.</li>
 *   <li><b>Only its own workers.</b> It tracks the worker it created per pod (by UID) and only ever removes those;
 *       statically configured or admin-registered workers are never touched. A ready pod whose URL and role are
 *       already registered by someone else is counted as a conflict and retried at the next event or list.</li>
 *   <li><b>Kubernetes is the source of truth.</b> If a discovered worker was removed behind discovery's back (admin
 *       {@code DELETE}) while its pod stays ready, the next event or list registers it again
 *       ({@link RegistrationReason#RESTORED}); to take a pod out, make it unready or change its labels.</li>
 *   <li><b>Lists are authoritative.</b> {@link #resync} treats every tracked pod absent from the list as deleted
 *       ({@link DeregistrationReason#VANISHED}), which covers deletions missed while the watch was down.</li>
 * </ul>
 * Thread-safety: all methods are {@code synchronized}; registry listeners run on the calling thread.
 */
public final class WorkerReconciler {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerReconciler.class);

    private final WorkerRegistry registry;
    private final PodClassifier classifier;
    private final DiscoveryMetrics metrics;
    /** Pods with a registered worker, by pod key. */
    private final Map<String, Tracked> tracked = new LinkedHashMap<>();
    /** Last logged verdict of selected-but-ineligible or conflicting pods, so a resync does not repeat the log line. */
    private final Map<String, String> lastNote = new HashMap<>();

    private record Tracked(DiscoveredWorker spec, Worker worker) {
    }

    public WorkerReconciler(WorkerRegistry registry, PodClassifier classifier, DiscoveryMetrics metrics) {
        this.registry = registry;
        this.classifier = classifier;
        this.metrics = metrics;
        metrics.bindWorkerCount(this::count);
    }

    /** Applies one watch event ({@link PodEventType#SNAPSHOT} is not an event: use {@link #resync}). */
    public synchronized void apply(PodEventType type, Pod pod) {
        switch (type) {
            case ADDED, MODIFIED -> upsert(pod);
            case DELETED -> {
                String key = PodClassifier.keyOf(pod);
                lastNote.remove(key);
                drain(key, DeregistrationReason.DELETED);
            }
            case SNAPSHOT -> throw new IllegalArgumentException("SNAPSHOT carries a pod list; call resync");
        }
    }

    /**
     * Reconciles with a complete pod list: first drains every tracked pod missing from it (so a pod that reused a
     * vanished pod's IP is not blocked by its stale worker), then upserts every pod.
     */
    public synchronized void resync(Collection<Pod> pods) {
        Set<String> seen = new HashSet<>();
        for (Pod pod : pods) {
            seen.add(PodClassifier.keyOf(pod));
        }
        for (String key : List.copyOf(tracked.keySet())) {
            if (!seen.contains(key)) {
                drain(key, DeregistrationReason.VANISHED);
            }
        }
        lastNote.keySet().retainAll(seen);
        for (Pod pod : pods) {
            upsert(pod);
        }
        metrics.resynced();
        LOG.debug("Resynced {} pods: {} discovered workers", pods.size(), tracked.size());
    }

    /** Discovered workers currently registered with this role. */
    public synchronized int count(WorkerRole role) {
        int n = 0;
        for (Tracked t : tracked.values()) {
            if (t.spec.role() == role) {
                n++;
            }
        }
        return n;
    }

    /** Discovered workers currently registered. */
    public synchronized int size() {
        return tracked.size();
    }

    private void upsert(Pod pod) {
        String key = PodClassifier.keyOf(pod);
        PodVerdict verdict = classifier.classify(pod);
        Tracked current = tracked.get(key);
        if (verdict instanceof PodVerdict.Ineligible no) {
            if (current != null) {
                drain(key, no.reason()); // logs the reason itself
                if (no.reason() != DeregistrationReason.SELECTOR_MISMATCH) {
                    lastNote.put(key, no.reason().tag());
                }
            } else {
                note(key, pod, no);
            }
            return;
        }
        DiscoveredWorker spec = ((PodVerdict.Eligible) verdict).worker();
        RegistrationReason reason = RegistrationReason.READY;
        if (current != null) {
            boolean present = registry.get(current.worker.id()).orElse(null) == current.worker;
            if (present && current.spec.equals(spec)) {
                return;
            }
            if (present) {
                drain(key, DeregistrationReason.CHANGED);
                reason = RegistrationReason.CHANGED;
            } else {
                tracked.remove(key);
                reason = RegistrationReason.RESTORED;
            }
        }
        register(key, spec, reason);
    }

    private void register(String key, DiscoveredWorker spec, RegistrationReason reason) {
        Worker worker = spec.toWorker();
        try {
            registry.add(worker);
        } catch (IllegalStateException e) {
            metrics.conflict();
            String note = "conflict:" + spec.url();
            if (!note.equals(lastNote.put(key, note))) {
                LOG.warn("Pod {} is ready but not registered: {}", spec.pod(), e.getMessage());
            }
            return;
        }
        lastNote.remove(key);
        tracked.put(key, new Tracked(spec, worker));
        metrics.registered(reason);
        LOG.info("Discovered pod {} ({}): registered {} as {}", spec.pod(), reason.tag(), spec.url(), worker.id());
    }

    private void drain(String key, DeregistrationReason reason) {
        Tracked t = tracked.remove(key);
        if (t == null) {
            return;
        }
        if (registry.get(t.worker.id()).orElse(null) != t.worker) {
            LOG.debug("Pod {}: worker {} was already removed from the registry", t.spec.pod(), t.worker.id());
            return;
        }
        registry.remove(t.worker.id());
        metrics.deregistered(reason);
        LOG.info("Pod {} ({}): draining {} ({} in flight)", t.spec.pod(), reason.tag(), t.spec.url(), t.worker.localLoad());
    }

    private void note(String key, Pod pod, PodVerdict.Ineligible no) {
        if (no.reason() == DeregistrationReason.SELECTOR_MISMATCH) {
            lastNote.remove(key); // not ours: neither logged nor remembered (the namespace may hold thousands)
            return;
        }
        String note = no.reason().tag();
        if (!note.equals(lastNote.put(key, note))) {
            String name = pod.getMetadata() == null ? key
                    : pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
            if (no.reason() == DeregistrationReason.INVALID_ANNOTATION) {
                LOG.warn("Pod {} is not a worker: {}", name, no.detail());
            } else {
                LOG.info("Pod {} is not a worker yet: {} ({})", name, no.reason().tag(), no.detail());
            }
        }
    }
}
