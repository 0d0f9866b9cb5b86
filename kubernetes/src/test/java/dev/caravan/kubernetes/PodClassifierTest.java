package dev.caravan.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.WorkerRole;

class PodClassifierTest {

    private static final Map<String, String> ENGINE = Map.of("app", "vllm");
    private final PodClassifier regular = new PodClassifier(DiscoveryConfig.regular(ENGINE).withPort(8000));
    private final PodClassifier pd = new PodClassifier(
            DiscoveryConfig.prefillDecode(Map.of("role", "prefill"), Map.of("role", "decode")));

    private static TestPods engine(String name) {
        return TestPods.pod("llm", name).labels(ENGINE).uid("uid-" + name).ip("10.0.0.5");
    }

    private static DiscoveredWorker eligible(PodVerdict v) {
        assertThat(v).isInstanceOf(PodVerdict.Eligible.class);
        return ((PodVerdict.Eligible) v).worker();
    }

    private static DeregistrationReason reason(PodVerdict v) {
        assertThat(v).isInstanceOf(PodVerdict.Ineligible.class);
        return ((PodVerdict.Ineligible) v).reason();
    }

    @Test
    void runningReadyPodWithIpBecomesWorkerAtPodIpAndPort() {
        DiscoveredWorker w = eligible(regular.classify(engine("e0").build()));
        assertThat(w).isEqualTo(new DiscoveredWorker("uid-e0", "llm", "e0", "http://10.0.0.5:8000",
                WorkerRole.REGULAR, null, null, null, null));
    }

    @Test
    void podThatIsUpButNotReadyIsNotAWorker() {
        assertThat(reason(regular.classify(engine("e0").ready("False").build())))
                .isEqualTo(DeregistrationReason.NOT_READY);
        assertThat(reason(regular.classify(engine("e0").ready(null).build())))
                .isEqualTo(DeregistrationReason.NOT_READY);
    }

    @Test
    void readyConditionDoesNotCountOutsideRunningPhase() {
        assertThat(reason(regular.classify(engine("e0").phase("Pending").build())))
                .isEqualTo(DeregistrationReason.NOT_RUNNING);
        assertThat(reason(regular.classify(engine("e0").phase("Succeeded").build())))
                .isEqualTo(DeregistrationReason.NOT_RUNNING);
    }

    @Test
    void podWithoutIpIsNotAWorker() {
        assertThat(reason(regular.classify(engine("e0").ip(null).build()))).isEqualTo(DeregistrationReason.NO_POD_IP);
    }

    @Test
    void terminatingPodIsNotAWorkerEvenWhileStillReady() {
        assertThat(reason(regular.classify(engine("e0").terminating().build())))
                .isEqualTo(DeregistrationReason.TERMINATING);
    }

    @Test
    void selectorMismatchIsReportedFirst() {
        Pod other = TestPods.pod("llm", "web").label("app", "nginx").phase("Pending").build();
        assertThat(reason(regular.classify(other))).isEqualTo(DeregistrationReason.SELECTOR_MISMATCH);
    }

    @Test
    void prefillPodCarriesBootstrapPortFromAnnotation() {
        Pod prefill = TestPods.pod("llm", "p0").label("role", "prefill").ip("10.0.1.1")
                .annotation("sglang.ai/bootstrap-port", "8998").build();
        DiscoveredWorker w = eligible(pd.classify(prefill));
        assertThat(w.url()).isEqualTo("http://10.0.1.1:80");
        assertThat(w.role()).isEqualTo(WorkerRole.PREFILL);
        assertThat(w.bootstrapPort()).isEqualTo(8998);
        assertThat(w.toWorker().bootstrapPort()).isEqualTo(8998);
    }

    @Test
    void decodePodIgnoresBootstrapAnnotation() {
        Pod decode = TestPods.pod("llm", "d0").label("role", "decode")
                .annotation("sglang.ai/bootstrap-port", "8998").build();
        DiscoveredWorker w = eligible(pd.classify(decode));
        assertThat(w.role()).isEqualTo(WorkerRole.DECODE);
        assertThat(w.bootstrapPort()).isNull();
    }

    @Test
    void malformedBootstrapPortMakesPrefillPodIneligible() {
        Pod prefill = TestPods.pod("llm", "p0").label("role", "prefill")
                .annotation("sglang.ai/bootstrap-port", "eighty").build();
        PodVerdict v = pd.classify(prefill);
        assertThat(reason(v)).isEqualTo(DeregistrationReason.INVALID_ANNOTATION);
        assertThat(((PodVerdict.Ineligible) v).detail())
                .isEqualTo("sglang.ai/bootstrap-port must be a port in [1,65535], was 'eighty'");
    }

    @Test
    void kvEndpointWildcardHostsAndBarePortsResolveToThePodIp() {
        assertThat(PodClassifier.endpoint("a", "tcp://*:5557", "10.0.0.5")).isEqualTo("tcp://10.0.0.5:5557");
        assertThat(PodClassifier.endpoint("a", "tcp://0.0.0.0:5557", "10.0.0.5")).isEqualTo("tcp://10.0.0.5:5557");
        assertThat(PodClassifier.endpoint("a", "5558", "10.0.0.5")).isEqualTo("tcp://10.0.0.5:5558");
        assertThat(PodClassifier.endpoint("a", "tcp://kv-relay.llm:6000", "10.0.0.5"))
                .isEqualTo("tcp://kv-relay.llm:6000");
        assertThat(PodClassifier.endpoint("a", " ", "10.0.0.5")).isNull();
    }

    @Test
    void malformedKvEndpointMakesPodIneligible() {
        PodVerdict v = regular.classify(engine("e0").annotation("caravan.dev/kv-events-endpoint", "ipc:///tmp/kv")
                .build());
        assertThat(reason(v)).isEqualTo(DeregistrationReason.INVALID_ANNOTATION);
        assertThat(((PodVerdict.Ineligible) v).detail())
                .isEqualTo("caravan.dev/kv-events-endpoint must be a port or tcp://host:port, was 'ipc:///tmp/kv'");
        assertThat(reason(regular.classify(engine("e0").annotation("caravan.dev/kv-replay-endpoint", "tcp://*:")
                .build()))).isEqualTo(DeregistrationReason.INVALID_ANNOTATION);
    }

    @Test
    void modelAndKvAnnotationsGoOntoTheWorker() {
        DiscoveredWorker w = eligible(regular.classify(engine("e0")
                .annotation("caravan.dev/model", "Qwen/Qwen3-8B")
                .annotation("caravan.dev/kv-events-endpoint", "tcp://*:5557")
                .annotation("caravan.dev/kv-replay-endpoint", "tcp://*:5558").build()));
        assertThat(w.toWorker().modelId()).isEqualTo("Qwen/Qwen3-8B");
        assertThat(w.toWorker().kvEventsEndpoint()).isEqualTo("tcp://10.0.0.5:5557");
        assertThat(w.toWorker().kvReplayEndpoint()).isEqualTo("tcp://10.0.0.5:5558");
    }

    @Test
    void ipv6PodAddressIsBracketed() {
        DiscoveredWorker w = eligible(regular.classify(engine("e0").ip("fd00::5")
                .annotation("caravan.dev/kv-events-endpoint", "5557").build()));
        assertThat(w.url()).isEqualTo("http://[fd00::5]:8000");
        assertThat(w.kvEventsEndpoint()).isEqualTo("tcp://[fd00::5]:5557");
        assertThat(w.toWorker().host()).isEqualTo("[fd00::5]");
    }

    @Test
    void discoveredWorkersPassTheSameUrlRulesAsFlagsAndTheAdminApi() {
        // pods are reached by IP; a discovered URL with a '_' host registers like any other
        DiscoveredWorker named = new DiscoveredWorker("uid-a", "llm", "worker-a", "http://worker_a:8000",
                WorkerRole.REGULAR, null, null, null, null);
        assertThat(named.toWorker().url()).isEqualTo("http://worker_a:8000");
        assertThat(named.toWorker().host()).isEqualTo("worker_a");
    }

    @Test
    void podWithoutUidIsKeyedByNamespaceAndName() {
        assertThat(PodClassifier.keyOf(engine("e0").uid(null).build())).isEqualTo("llm/e0");
    }
}
