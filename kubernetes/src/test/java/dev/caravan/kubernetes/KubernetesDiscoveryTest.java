package dev.caravan.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.components.podwatch.PodWatchConsumer;
import dev.caravan.components.podwatch.PodWatchListener;

/**
 * The whole discovery path — {@code pod-watch:} consumer, {@code reconcileWorkers} step, reconciler, registry — against
 * fabric8's CRUD mock API server: pods are created, edited and deleted through the real client, and the registry must
 * follow. Absence is asserted after a later "sentinel" pod is seen: the consumer processes events in order on one
 * thread, so once the sentinel is registered every earlier event has been applied.
 */
class KubernetesDiscoveryTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Map<String, String> ENGINE = Map.of("app", "vllm");

    private MockApiServer api;
    private CamelContext camel;
    private final WorkerRegistry registry = new WorkerRegistry();
    private final DiscoveryMetrics metrics = new DiscoveryMetrics(new SimpleMeterRegistry());

    @BeforeEach
    void startApiServer() throws Exception {
        api = MockApiServer.start();
    }

    @AfterEach
    void stopAll() {
        if (camel != null) {
            camel.stop();
        }
        api.close();
    }

    private void startDiscovery(DiscoveryConfig config) throws Exception {
        startDiscovery(config, "0");
        awaitWatching();
    }

    private void startDiscovery(DiscoveryConfig config, String resyncInterval) throws Exception {
        WorkerReconciler reconciler = new WorkerReconciler(registry, new PodClassifier(config), metrics);
        camel = new DefaultCamelContext();
        camel.getRegistry().bind("kc", api.client());
        camel.getRegistry().bind(DiscoveryFeature.DISCOVERY_METRICS, metrics);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("pod-watch:workers?kubernetesClient=#kc&watchListener=#discoveryMetrics&namespace="
                        + config.namespace() + "&resyncInterval=" + resyncInterval + "&backoffInitial=20&backoffMax=200")
                        .routeId("discovery")
                        .process(new ReconcileWorkersProcessor(reconciler));
            }
        });
        camel.start();
    }

    private void awaitWatching() {
        PodWatchConsumer consumer = (PodWatchConsumer) camel.getRoute("discovery").getConsumer();
        await().atMost(WAIT).until(consumer::isWatching);
    }

    private Pod create(Pod pod) {
        return api.client().pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
    }

    private void setReady(Pod pod, String status) {
        Pod current = api.client().pods().inNamespace(pod.getMetadata().getNamespace())
                .withName(pod.getMetadata().getName()).get();
        current.getStatus().setConditions(List.of(new PodConditionBuilder().withType("Ready").withStatus(status)
                .build()));
        api.client().pods().inNamespace(pod.getMetadata().getNamespace()).resource(current).updateStatus();
    }

    private Set<String> urls() {
        return registry.all().stream().map(Worker::url).collect(Collectors.toSet());
    }

    private void awaitUrls(String... expected) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(urls()).containsExactlyInAnyOrder(expected));
    }

    @Test
    void registersReadyPodsAtPodIpAndPortWithTheirAnnotations() throws Exception {
        create(TestPods.pod("llm", "before").labels(ENGINE).ip("10.0.0.1")
                .annotation("caravan.dev/model", "meta-llama/Llama-3.1-8B-Instruct")
                .annotation("caravan.dev/kv-events-endpoint", "tcp://*:5557")
                .annotation("caravan.dev/kv-replay-endpoint", "5558").build());
        startDiscovery(DiscoveryConfig.regular(ENGINE).withPort(8000).withNamespace("llm"));
        awaitUrls("http://10.0.0.1:8000");

        create(TestPods.pod("llm", "after").labels(ENGINE).ip("10.0.0.2").build());
        awaitUrls("http://10.0.0.1:8000", "http://10.0.0.2:8000");

        Worker first = registry.findByUrl("http://10.0.0.1:8000").orElseThrow();
        assertThat(first.role()).isEqualTo(WorkerRole.REGULAR);
        assertThat(first.modelId()).isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
        assertThat(first.kvEventsEndpoint()).isEqualTo("tcp://10.0.0.1:5557");
        assertThat(first.kvReplayEndpoint()).isEqualTo("tcp://10.0.0.1:5558");
        assertThat(first.labels()).containsEntry("k8s.pod", "llm/before");
        assertThat(metrics.registrations(RegistrationReason.READY)).isEqualTo(2.0);
    }

    @Test
    void ignoresPendingAndUnreadyPodsUntilTheyBecomeReady() throws Exception {
        startDiscovery(DiscoveryConfig.regular(ENGINE).withNamespace("llm"));
        create(TestPods.pod("llm", "pending").labels(ENGINE).phase("Pending").ready(null).ip(null).build());
        Pod loading = create(TestPods.pod("llm", "loading").labels(ENGINE).ip("10.0.0.2").ready("False").build());
        create(TestPods.pod("llm", "sentinel").labels(ENGINE).ip("10.0.0.9").build());
        awaitUrls("http://10.0.0.9:80");

        setReady(loading, "True");
        awaitUrls("http://10.0.0.9:80", "http://10.0.0.2:80");
    }

    @Test
    void drainsPodThatTurnsUnreadyWhileItsInFlightRequestFinishes() throws Exception {
        Pod pod = create(TestPods.pod("llm", "engine-0").labels(ENGINE).ip("10.0.0.1").build());
        startDiscovery(DiscoveryConfig.regular(ENGINE).withNamespace("llm"));
        awaitUrls("http://10.0.0.1:80");
        Worker worker = registry.all().get(0);
        WorkerLease inFlight = worker.acquire();

        setReady(pod, "False");
        awaitUrls();

        assertThat(worker.load()).isEqualTo(1);
        assertThat(inFlight.release()).isTrue();
        assertThat(worker.load()).isZero();
        assertThat(metrics.deregistrations(DeregistrationReason.NOT_READY)).isEqualTo(1.0);

        setReady(pod, "True");
        awaitUrls("http://10.0.0.1:80");
    }

    @Test
    void removesDeletedPod() throws Exception {
        Pod pod = create(TestPods.pod("llm", "engine-0").labels(ENGINE).ip("10.0.0.1").build());
        startDiscovery(DiscoveryConfig.regular(ENGINE).withNamespace("llm"));
        awaitUrls("http://10.0.0.1:80");

        api.client().pods().inNamespace("llm").withName(pod.getMetadata().getName()).delete();
        awaitUrls();
        // The mock deletes at once (a real API server first sets deletionTimestamp: see WorkerReconcilerTest).
        assertThat(metrics.deregistrations(DeregistrationReason.DELETED)).isEqualTo(1.0);
    }

    @Test
    void ignoresPodsOutsideTheSelectorAndDrainsPodsThatLeaveIt() throws Exception {
        create(TestPods.pod("llm", "other-app").label("app", "nginx").ip("10.0.0.7").build());
        create(TestPods.pod("llm", "half-match").label("app", "vllm").label("tier", "cpu").ip("10.0.0.8").build());
        Pod gpu = create(TestPods.pod("llm", "gpu").label("app", "vllm").label("tier", "gpu").ip("10.0.0.1").build());
        startDiscovery(DiscoveryConfig.regular(Map.of("app", "vllm", "tier", "gpu")).withNamespace("llm"));
        awaitUrls("http://10.0.0.1:80");

        Pod relabelled = api.client().pods().inNamespace("llm").withName("gpu").get();
        relabelled.getMetadata().getLabels().put("tier", "maintenance");
        api.client().pods().inNamespace("llm").resource(relabelled).update();
        awaitUrls();
        assertThat(metrics.deregistrations(DeregistrationReason.SELECTOR_MISMATCH)).isEqualTo(1.0);
        assertThat(gpu.getMetadata().getUid()).isNotBlank();
    }

    @Test
    void assignsPrefillAndDecodeRolesAndTheBootstrapPortAnnotation() throws Exception {
        create(TestPods.pod("llm", "prefill-0").label("role", "prefill").ip("10.0.1.1")
                .annotation("sglang.ai/bootstrap-port", "8998").build());
        create(TestPods.pod("llm", "decode-0").label("role", "decode").ip("10.0.2.1")
                .annotation("sglang.ai/bootstrap-port", "8998").build());
        startDiscovery(DiscoveryConfig.prefillDecode(Map.of("role", "prefill"), Map.of("role", "decode"))
                .withPort(8000).withNamespace("llm"));
        awaitUrls("http://10.0.1.1:8000", "http://10.0.2.1:8000");

        Worker prefill = registry.findByUrl("http://10.0.1.1:8000").orElseThrow();
        Worker decode = registry.findByUrl("http://10.0.2.1:8000").orElseThrow();
        assertThat(prefill.role()).isEqualTo(WorkerRole.PREFILL);
        assertThat(prefill.bootstrapPort()).isEqualTo(8998);
        assertThat(decode.role()).isEqualTo(WorkerRole.DECODE);
        assertThat(decode.bootstrapPort()).isNull();
    }

    @Test
    void watchesOnlyTheConfiguredNamespace() throws Exception {
        create(TestPods.pod("llm", "mine").labels(ENGINE).ip("10.0.0.1").build());
        create(TestPods.pod("staging", "theirs").labels(ENGINE).ip("10.0.0.2").build());
        startDiscovery(DiscoveryConfig.regular(ENGINE).withNamespace("llm"));
        create(TestPods.pod("staging", "theirs-too").labels(ENGINE).ip("10.0.0.3").build());
        create(TestPods.pod("llm", "sentinel").labels(ENGINE).ip("10.0.0.9").build());
        awaitUrls("http://10.0.0.1:80", "http://10.0.0.9:80");
    }

    @Test
    void watchesEveryNamespaceWhenNoneIsConfigured() throws Exception {
        create(TestPods.pod("llm", "a").labels(ENGINE).ip("10.0.0.1").build());
        create(TestPods.pod("staging", "b").labels(ENGINE).ip("10.0.0.2").build());
        startDiscovery(DiscoveryConfig.regular(ENGINE));
        awaitUrls("http://10.0.0.1:80", "http://10.0.0.2:80");
        create(TestPods.pod("team-x", "c").labels(ENGINE).ip("10.0.0.3").build());
        awaitUrls("http://10.0.0.1:80", "http://10.0.0.2:80", "http://10.0.0.3:80");
    }

    /**
     * What this proves: after the API server expires the open watch (ERROR event, Status 410) and keeps refusing new
     * watches with 410, every change is still applied — a pod deleted and a pod created while no watch could be open
     * reach the registry only through the re-lists the consumer keeps doing with back-off (the deleted one as
     * {@code vanished}). Once watches are accepted again the loop is watching again and a later pod arrives through
     * the watch (no periodic resync is configured, so nothing else could deliver it).
     */
    @Test
    void convergesThroughRelistsWhenTheWatchExpires() throws Exception {
        Pod old = create(TestPods.pod("llm", "old").labels(ENGINE).ip("10.0.0.1").build());
        startDiscovery(DiscoveryConfig.regular(ENGINE).withNamespace("llm"));
        awaitUrls("http://10.0.0.1:80");

        api.refuseWatches(true);
        assertThat(api.expireOpenWatches()).isEqualTo(1);
        await().atMost(WAIT).until(() -> metrics.watchRestarts(PodWatchListener.CAUSE_EXPIRED) >= 2);

        api.client().pods().inNamespace("llm").withName(old.getMetadata().getName()).delete();
        create(TestPods.pod("llm", "new").labels(ENGINE).ip("10.0.0.2").build());
        awaitUrls("http://10.0.0.2:80");
        assertThat(metrics.deregistrations(DeregistrationReason.VANISHED)).isEqualTo(1.0);

        api.refuseWatches(false);
        awaitWatching();
        create(TestPods.pod("llm", "later").labels(ENGINE).ip("10.0.0.3").build());
        awaitUrls("http://10.0.0.2:80", "http://10.0.0.3:80");
    }

    @Test
    void keepsReceivingEventsAfterTheConnectionDrops() throws Exception {
        startDiscovery(DiscoveryConfig.regular(ENGINE).withNamespace("llm"));
        // the consumer reports watching once the client asked; the mock server may register the watch a moment later
        await().atMost(WAIT).until(() -> api.dropOpenWatches() == 1);
        create(TestPods.pod("llm", "after-drop").labels(ENGINE).ip("10.0.0.4").build());
        awaitUrls("http://10.0.0.4:80");
    }

    @Test
    void retriesListsTheApiServerForbidsUntilAllowed() throws Exception {
        create(TestPods.pod("llm", "engine-0").labels(ENGINE).ip("10.0.0.1").build());
        api.forbidLists(true);
        startDiscovery(DiscoveryConfig.regular(ENGINE).withNamespace("llm"), "0");
        await().atMost(WAIT).until(() -> metrics.watchRestarts(PodWatchListener.CAUSE_LIST_FAILED) >= 2);
        assertThat(registry.all()).isEmpty();

        api.forbidLists(false);
        awaitUrls("http://10.0.0.1:80");
        awaitWatching();
    }

    @Test
    void periodicResyncRestoresAWorkerRemovedBehindItsBack() throws Exception {
        create(TestPods.pod("llm", "engine-0").labels(ENGINE).ip("10.0.0.1").build());
        startDiscovery(DiscoveryConfig.regular(ENGINE).withNamespace("llm"), "100");
        awaitUrls("http://10.0.0.1:80");

        registry.remove(registry.all().get(0).id());
        awaitUrls("http://10.0.0.1:80");
        assertThat(metrics.registrations(RegistrationReason.RESTORED)).isGreaterThanOrEqualTo(1.0);
    }

    @Test
    void neverTouchesStaticWorkersWithTheSameUrl() throws Exception {
        Worker configured = registry.add(Worker.builder("http://10.0.0.1:80").build());
        Pod pod = create(TestPods.pod("llm", "engine-0").labels(ENGINE).ip("10.0.0.1").build());
        startDiscovery(DiscoveryConfig.regular(ENGINE).withNamespace("llm"));
        create(TestPods.pod("llm", "sentinel").labels(ENGINE).ip("10.0.0.9").build());
        awaitUrls("http://10.0.0.1:80", "http://10.0.0.9:80");
        assertThat(metrics.registrations(RegistrationReason.READY)).isEqualTo(1.0);

        api.client().pods().inNamespace("llm").withName(pod.getMetadata().getName()).delete();
        api.client().pods().inNamespace("llm").withName("sentinel").delete();
        awaitUrls("http://10.0.0.1:80");
        assertThat(registry.all()).containsExactly(configured);
    }
}
