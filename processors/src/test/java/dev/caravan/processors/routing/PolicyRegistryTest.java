package dev.caravan.processors.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.error.GatewayException;

class PolicyRegistryTest {

    private final WorkerRegistry workers = new WorkerRegistry();
    private final Map<String, RecordingPolicy> created = new HashMap<>();
    private final PolicyRegistry policies = new PolicyRegistry(workers, m -> {
        RecordingPolicy p = new RecordingPolicy(m);
        created.put(m, p);
        return p;
    });

    private Worker add(String url, String model) {
        return workers.add(Worker.builder(url).modelId(model).build());
    }

    @Test
    void eachModelGetsItsOwnPolicyToldAboutItsWorkers() {
        add("http://a:1", "llama");
        add("http://b:1", "qwen");
        add("http://c:1", "llama");

        assertThat(created).containsOnlyKeys("llama", "qwen");
        assertThat(created.get("llama").events).containsExactly("added http://a:1", "added http://c:1");
        assertThat(created.get("qwen").events).containsExactly("added http://b:1");
    }

    @Test
    void aModelsPolicyIsDroppedWithItsLastWorker() {
        Worker a = add("http://a:1", "llama");
        Worker c = add("http://c:1", "llama");
        workers.remove(a.id());
        assertThat(policies.policies()).containsKey("llama");
        workers.remove(c.id());
        assertThat(policies.policies()).doesNotContainKey("llama");
        assertThat(created.get("llama").events).endsWith("removed http://a:1", "removed http://c:1");
    }

    @Test
    void aNamedModelSelectsItsWorkers() {
        add("http://a:1", "llama");
        add("http://b:1", "qwen");
        PolicyRegistry.Pool pool = policies.poolFor("qwen");
        assertThat(pool.model()).isEqualTo("qwen");
        assertThat(pool.workers()).extracting(Worker::url).containsExactly("http://b:1");
        assertThat(pool.policy()).isSameAs(created.get("qwen"));
    }

    @Test
    void workersWithoutAModelServeAnyModelAsSglangNonIgwDoes() {
        add("http://a:1", null);
        add("http://b:1", null);
        PolicyRegistry.Pool pool = policies.poolFor("whatever-the-client-says");
        assertThat(pool.model()).isEqualTo(Worker.UNKNOWN_MODEL_ID);
        assertThat(pool.workers()).hasSize(2);
    }

    @Test
    void anUndeclaredModelIs404OnlyWhenEveryWorkerDeclaresOne() {
        add("http://a:1", "llama");
        assertThatThrownBy(() -> policies.poolFor("gpt-4")).isInstanceOf(GatewayException.class)
                .hasMessage("model 'gpt-4' is not served; available: llama");
        add("http://b:1", null);
        assertThat(policies.poolFor("gpt-4").workers()).extracting(Worker::url).containsExactly("http://b:1");
    }

    @Test
    void noModelUsesTheOnlyModelServed() {
        add("http://a:1", "llama");
        add("http://b:1", "llama");
        assertThat(policies.poolFor(null).model()).isEqualTo("llama");
    }

    @Test
    void noModelWithSeveralDeclaredModelsIs400() {
        add("http://a:1", "llama");
        add("http://b:1", "qwen");
        assertThatThrownBy(() -> policies.poolFor(null)).hasMessage("model is required: workers serve llama, qwen");
    }

    @Test
    void noWorkersGivesAnEmptyPoolWithoutCreatingAPolicy() {
        PolicyRegistry.Pool pool = policies.poolFor("llama");
        assertThat(pool.workers()).isEmpty();
        assertThat(pool.policy()).isNull();
        assertThat(created).isEmpty();
    }

    @Test
    void prefillAndDecodeWorkersAreNotPooled() {
        workers.add(Worker.builder("http://p:1").role(WorkerRole.PREFILL).build());
        assertThat(created).isEmpty();
        assertThat(policies.poolFor(null).workers()).isEmpty();
    }

    @Test
    void forgettingAWorkersCacheRemovesAndReAddsItToItsPolicy() {
        Worker a = add("http://a:1", "llama");
        policies.forgetCache(a);
        assertThat(created.get("llama").events).containsExactly("added http://a:1", "removed http://a:1",
                "added http://a:1");
    }

    @Test
    void aFlushThroughThisGatewayIsToldToTheListenerAndOneThroughAPeerIsNot() {
        Worker a = add("http://a:1", "llama");
        Worker b = add("http://b:1", "llama");
        List<String> told = new ArrayList<>();
        policies.onCacheFlushed(w -> told.add(w.url()));
        policies.forgetCache(a);
        policies.forgetFlushedCache(b);
        assertThat(told).containsExactly("http://a:1");
        assertThat(created.get("llama").events).endsWith("removed http://b:1", "added http://b:1");
    }
}
