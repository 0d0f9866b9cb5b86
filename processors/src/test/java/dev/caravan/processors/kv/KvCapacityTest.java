package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;

class KvCapacityTest {

    @Test
    void readsSglangServerInfo() {
        KvCapacity c = KvCapacity.fromServerInfo("{\"page_size\":16,\"max_total_num_tokens\":428569,"
                + "\"kv_capacity_tokens\":428569}");
        assertThat(c).isEqualTo(new KvCapacity(428_569, 16));
        assertThat(c.chars(4)).isEqualTo(1_714_276);
    }

    @Test
    void readsTheSimulatorsOwnCapacityWhenSglangsIsAbsent() {
        assertThat(KvCapacity.fromServerInfo("{\"kv_capacity_tokens\":2048}")).isEqualTo(new KvCapacity(2048, 0));
    }

    @Test
    void readsVllmsCacheConfigGauge() {
        String metrics = """
                # HELP vllm:cache_config_info KV cache configuration.
                # TYPE vllm:cache_config_info gauge
                vllm:cache_config_info{block_size="32",cache_dtype="auto",num_gpu_blocks="1000",enable_prefix_caching="True"} 1.0
                vllm:num_requests_running{model_name="m"} 0.0
                """;
        assertThat(KvCapacity.fromMetrics(metrics)).isEqualTo(new KvCapacity(32_000, 32));
    }

    @Test
    void saysNothingWhenTheEngineDoesNot() {
        assertThat(KvCapacity.fromServerInfo("{\"model_path\":\"m\"}")).isNull();
        assertThat(KvCapacity.fromServerInfo("not json")).isNull();
        assertThat(KvCapacity.fromServerInfo("[1,2]")).isNull();
        assertThat(KvCapacity.fromMetrics("vllm:num_requests_running 3")).isNull();
        assertThat(KvCapacity.fromMetrics("vllm:cache_config_info{block_size=\"16\"} 1")).isNull();
        assertThat(KvCapacity.fromMetrics(null)).isNull();
    }

    @Test
    void asksNewWorkersAtOnceThenRetriesUnansweredOnesAndRefreshesKnownOnesLess() {
        KvCapacities capacities = new KvCapacities();
        Worker a = Worker.builder("http://a:1").id("a").build();
        Worker b = Worker.builder("http://b:1").id("b").build();
        long t0 = 1_000;
        assertThat(capacities.due(List.of(a, b), t0)).containsExactly(a, b);
        assertThat(capacities.due(List.of(a, b), t0 + 1)).isEmpty();
        capacities.record("a", new KvCapacity(1024, 16));
        capacities.record("b", null);

        long retry = t0 + KvCapacities.RETRY_INTERVAL.toNanos();
        assertThat(capacities.due(List.of(a, b), retry)).containsExactly(b);
        long refresh = t0 + KvCapacities.REFRESH_INTERVAL.toNanos();
        assertThat(capacities.due(List.of(a, b), refresh)).containsExactly(a, b);

        assertThat(capacities.blockSize("a", 64)).isEqualTo(16);
        assertThat(capacities.blockSize("b", 64)).isEqualTo(64);
        assertThat(capacities.known()).containsOnlyKeys("a");
        capacities.forget("a");
        assertThat(capacities.capacity("a")).isNull();
        assertThat(KvCapacities.REFRESH_INTERVAL).isGreaterThan(Duration.ZERO);
    }

    @Test
    void readsTheDataParallelSizeFromServerInfoOrVllmsEngineLabels() {
        assertThat(DataParallelSize.fromServerInfo("{\"dp_size\":4,\"page_size\":1}")).isEqualTo(4);
        assertThat(DataParallelSize.fromServerInfo("{\"page_size\":1}")).isZero();
        assertThat(DataParallelSize.fromServerInfo("nope")).isZero();
        String metrics = """
                vllm:num_requests_running{engine="0",model_name="m"} 1.0
                vllm:num_requests_running{engine="1",model_name="m"} 0.0
                vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.5
                caravan_other{engine="7"} 1
                """;
        assertThat(DataParallelSize.fromMetrics(metrics)).isEqualTo(2);
        assertThat(DataParallelSize.fromMetrics("vllm:num_requests_running{model_name=\"m\"} 0")).isZero();
        assertThat(DataParallelSize.fromMetrics(null)).isZero();
    }
}
