package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.kv.KvGroupSpec;

/** {@code --kv-groups}: each worker gets its model's configured groups, or those for every model. */
class KvGroupsConfigTest {

    private static final List<KvGroupSpec> LLAMA4 = List.of(new KvGroupSpec(0, "full_attention", 0),
            new KvGroupSpec(1, "chunked_local", 8192));

    @Test
    void aWorkerGetsItsModelsGroupsAndOtherWorkersTheDefault() {
        WorkerRegistry workers = new WorkerRegistry();
        Worker llama = workers.add(Worker.builder("http://a:1").modelId("llama-4-scout").build());
        Worker other = workers.add(Worker.builder("http://b:1").modelId("qwen3").build());
        Map<String, List<KvGroupSpec>> byModel = KvFeature.groupsByModel(
                "llama-4-scout=0:full_attention,1:chunked_local:8192;1:sliding_window:128");

        Function<String, List<KvGroupSpec>> groups = KvFeature.groupsByWorker(workers, byModel);

        assertThat(groups.apply(llama.id())).isEqualTo(LLAMA4);
        assertThat(groups.apply(other.id())).containsExactly(new KvGroupSpec(1, "sliding_window", 128));
        assertThat(groups.apply("gone")).containsExactly(new KvGroupSpec(1, "sliding_window", 128));
    }

    @Test
    void withNothingConfiguredNoWorkerHasGroups() {
        Function<String, List<KvGroupSpec>> groups = KvFeature.groupsByWorker(new WorkerRegistry(),
                KvFeature.groupsByModel(""));

        assertThat(groups.apply("any")).isEmpty();
    }

    @Test
    void aWrongEntryIsAStartupErrorNamingTheFlag() {
        assertThatThrownBy(() -> KvFeature.groupsByModel("m=1:chunked_local"))
                .hasMessage("--kv-groups: group 1 (chunked_local): needs its window or chunk in tokens");
        assertThatThrownBy(() -> KvFeature.groupsByModel("m=0:mamba;m=1:mamba"))
                .hasMessage("--kv-groups: model 'm' is listed twice");
    }
}
