package dev.caravan.processors.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EngineLoadParserTest {

    @Test
    void sumsSglangGetLoadOverDataParallelRanks() {
        EngineLoadParser.Figures f = EngineLoadParser.fromGetLoad(
                "[{\"dp_rank\":0,\"num_reqs\":3,\"num_waiting_reqs\":1,\"num_tokens\":1000},"
                        + "{\"dp_rank\":1,\"num_reqs\":2,\"num_waiting_reqs\":0,\"num_tokens\":500}]");
        assertThat(f).isEqualTo(new EngineLoadParser.Figures(1500, 5, 1, -1));
    }

    @Test
    void acceptsASingleGetLoadObject() {
        assertThat(EngineLoadParser.fromGetLoad("{\"num_tokens\":7}").tokens()).isEqualTo(7);
    }

    @Test
    void unparsableGetLoadIsUnknown() {
        assertThat(EngineLoadParser.fromGetLoad("<html>")).isEqualTo(EngineLoadParser.Figures.NONE);
    }

    @Test
    void readsVllmMetrics() {
        String text = """
                # HELP vllm:num_requests_running Number of requests in model execution batches.
                # TYPE vllm:num_requests_running gauge
                vllm:num_requests_running{model_name="m"} 4.0
                vllm:num_requests_waiting{model_name="m"} 2.0
                vllm:kv_cache_usage_perc{model_name="m"} 0.75
                vllm:prompt_tokens_total{model_name="m"} 12345.0
                """;
        assertThat(EngineLoadParser.fromMetrics(text)).isEqualTo(new EngineLoadParser.Figures(-1, 4, 2, 0.75));
    }

    @Test
    void readsSglangMetricsSummingLabelSets() {
        String text = "sglang:num_running_reqs{tp_rank=\"0\"} 3\nsglang:num_running_reqs{tp_rank=\"1\"} 1\n"
                + "sglang:num_queue_reqs{tp_rank=\"0\"} 5\nsglang:token_usage{tp_rank=\"0\"} 0.2\n"
                + "sglang:token_usage{tp_rank=\"1\"} 0.4\n";
        assertThat(EngineLoadParser.fromMetrics(text)).isEqualTo(new EngineLoadParser.Figures(-1, 4, 5, 0.4));
    }

    @Test
    void metricsWithoutEngineLoadAreUnknown() {
        assertThat(EngineLoadParser.fromMetrics("process_cpu_seconds_total 1.0\n"))
                .isEqualTo(EngineLoadParser.Figures.NONE);
    }
}
