package dev.caravan.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Pod;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.components.podwatch.PodEventType;

class WorkerReconcilerTest {

    private static final Map<String, String> ENGINE = Map.of("app", "vllm");

    private final WorkerRegistry registry = new WorkerRegistry();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final DiscoveryMetrics metrics = new DiscoveryMetrics(meters);
    private final WorkerReconciler reconciler = new WorkerReconciler(registry,
            new PodClassifier(DiscoveryConfig.regular(ENGINE)), metrics);
    private final List<String> changes = new ArrayList<>();

    WorkerReconcilerTest() {
        registry.addListener(new WorkerListener() {
            @Override
            public void onWorkerAdded(Worker w) {
                changes.add("+" + w.url());
            }

            @Override
            public void onWorkerRemoved(Worker w) {
                changes.add("-" + w.url());
            }
        });
    }

    private static TestPods engine(String name, String ip) {
        return TestPods.pod("llm", name).labels(ENGINE).uid("uid-" + name).ip(ip);
    }

    @Test
    void reapplyingTheSameStateChangesNothing() {
        Pod pod = engine("e0", "10.0.0.1").build();
        reconciler.apply(PodEventType.ADDED, pod);
        Worker first = registry.all().get(0);
        reconciler.apply(PodEventType.MODIFIED, pod);
        reconciler.apply(PodEventType.MODIFIED, engine("e0", "10.0.0.1").label("unrelated", "x").build());
        reconciler.resync(List.of(pod));

        assertThat(registry.all()).containsExactly(first);
        assertThat(changes).containsExactly("+http://10.0.0.1:80");
        assertThat(metrics.registrations(RegistrationReason.READY)).isEqualTo(1.0);
    }

    @Test
    void terminatingPodIsDrainedBeforeItsDeletion() {
        reconciler.apply(PodEventType.ADDED, engine("e0", "10.0.0.1").build());
        reconciler.apply(PodEventType.MODIFIED, engine("e0", "10.0.0.1").terminating().build());
        reconciler.apply(PodEventType.DELETED, engine("e0", "10.0.0.1").terminating().build());

        assertThat(registry.all()).isEmpty();
        assertThat(changes).containsExactly("+http://10.0.0.1:80", "-http://10.0.0.1:80");
        assertThat(metrics.deregistrations(DeregistrationReason.TERMINATING)).isEqualTo(1.0);
        assertThat(metrics.deregistrations(DeregistrationReason.DELETED)).isZero();
    }

    @Test
    void changedAnnotationReplacesTheWorker() {
        reconciler.apply(PodEventType.ADDED, engine("e0", "10.0.0.1").build());
        reconciler.apply(PodEventType.MODIFIED, engine("e0", "10.0.0.1")
                .annotation("caravan.dev/kv-events-endpoint", "5557").build());

        assertThat(registry.all()).singleElement()
                .satisfies(w -> assertThat(w.kvEventsEndpoint()).isEqualTo("tcp://10.0.0.1:5557"));
        assertThat(changes).containsExactly("+http://10.0.0.1:80", "-http://10.0.0.1:80", "+http://10.0.0.1:80");
        assertThat(metrics.deregistrations(DeregistrationReason.CHANGED)).isEqualTo(1.0);
        assertThat(metrics.registrations(RegistrationReason.CHANGED)).isEqualTo(1.0);
    }

    @Test
    void resyncDrainsTrackedPodsMissingFromTheList() {
        reconciler.apply(PodEventType.ADDED, engine("e0", "10.0.0.1").build());
        reconciler.apply(PodEventType.ADDED, engine("e1", "10.0.0.2").build());
        reconciler.resync(List.of(engine("e1", "10.0.0.2").build(), engine("e2", "10.0.0.3").build()));

        assertThat(registry.all()).extracting(Worker::url).containsExactly("http://10.0.0.2:80", "http://10.0.0.3:80");
        assertThat(metrics.deregistrations(DeregistrationReason.VANISHED)).isEqualTo(1.0);
        assertThat(meters.get("caravan.discovery.resyncs").counter().count()).isEqualTo(1.0);
    }

    @Test
    void workerRemovedByAdminIsRestoredWhileItsPodStaysReady() {
        Pod pod = engine("e0", "10.0.0.1").build();
        reconciler.apply(PodEventType.ADDED, pod);
        registry.remove(registry.all().get(0).id());

        reconciler.resync(List.of(pod));

        assertThat(registry.all()).extracting(Worker::url).containsExactly("http://10.0.0.1:80");
        assertThat(metrics.registrations(RegistrationReason.RESTORED)).isEqualTo(1.0);
        assertThat(reconciler.size()).isEqualTo(1);
    }

    @Test
    void neverRemovesAWorkerItDidNotCreate() {
        Worker configured = registry.add(Worker.builder("http://10.0.0.1:80").build());
        Pod pod = engine("e0", "10.0.0.1").build();
        reconciler.apply(PodEventType.ADDED, pod);
        reconciler.apply(PodEventType.MODIFIED, engine("e0", "10.0.0.1").ready("False").build());
        reconciler.apply(PodEventType.DELETED, pod);
        reconciler.resync(List.of());

        assertThat(registry.all()).containsExactly(configured);
        assertThat(meters.get("caravan.discovery.conflicts").counter().count()).isEqualTo(1.0);
        assertThat(metrics.deregistrations(DeregistrationReason.NOT_READY)).isZero();
    }

    @Test
    void conflictingPodIsRegisteredOnceTheUrlIsFree() {
        reconciler.apply(PodEventType.ADDED, engine("old", "10.0.0.1").build());
        // The IP is reused by a new pod before the old pod's deletion was seen.
        reconciler.apply(PodEventType.ADDED, engine("new", "10.0.0.1").build());
        assertThat(registry.all()).singleElement().satisfies(w -> assertThat(w.labels()).containsEntry("k8s.pod",
                "llm/old"));

        reconciler.resync(List.of(engine("new", "10.0.0.1").build()));

        assertThat(registry.all()).singleElement().satisfies(w -> assertThat(w.labels()).containsEntry("k8s.pod",
                "llm/new"));
    }

    @Test
    void workerGaugeCountsDiscoveredWorkersByRole() {
        SimpleMeterRegistry own = new SimpleMeterRegistry();
        WorkerReconciler pd = new WorkerReconciler(new WorkerRegistry(), new PodClassifier(
                DiscoveryConfig.prefillDecode(Map.of("role", "prefill"), Map.of("role", "decode"))),
                new DiscoveryMetrics(own));
        pd.resync(List.of(
                TestPods.pod("llm", "p0").uid("p0").label("role", "prefill").ip("10.0.1.1").build(),
                TestPods.pod("llm", "d0").uid("d0").label("role", "decode").ip("10.0.2.1").build(),
                TestPods.pod("llm", "d1").uid("d1").label("role", "decode").ip("10.0.2.2").build()));

        assertThat(pd.count(WorkerRole.PREFILL)).isEqualTo(1);
        assertThat(pd.count(WorkerRole.DECODE)).isEqualTo(2);
        assertThat(own.get("caravan.discovery.workers").tag("role", "decode").gauge().value()).isEqualTo(2.0);
        assertThat(own.get("caravan.discovery.workers").tag("role", "regular").gauge().value()).isZero();
    }

    @Test
    void snapshotIsNotAnEvent() {
        assertThatThrownBy(() -> reconciler.apply(PodEventType.SNAPSHOT, engine("e0", "10.0.0.1").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SNAPSHOT carries a pod list; call resync");
    }
}
