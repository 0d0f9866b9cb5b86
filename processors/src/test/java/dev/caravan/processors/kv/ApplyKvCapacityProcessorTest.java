package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Worker;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.control.ControlCall;
import dev.caravan.processors.control.ControlResult;

class ApplyKvCapacityProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final KvCapacities capacities = new KvCapacities();
    private final List<Worker> changed = new ArrayList<>();
    private final ApplyKvCapacityProcessor apply = new ApplyKvCapacityProcessor(capacities, null, changed::add);

    private static ControlResult answer(Worker w, String path, String body) {
        return new ControlResult(new ControlCall(w, "GET", path, null), 200, body, null);
    }

    @Test
    void recordsTheDataParallelSizeAnEngineReportsAndSaysSo() {
        Worker sglang = Worker.builder("http://a:1").id("a").build();
        Worker vllm = Worker.builder("http://b:1").id("b").build();
        Exchange e = CAMEL.exchange();
        e.getMessage().setBody(List.of(
                answer(sglang, PlanKvCapacityPollProcessor.SERVER_INFO, "{\"dp_size\":2,\"max_total_num_tokens\":64}"),
                answer(vllm, PlanKvCapacityPollProcessor.SERVER_INFO, "not found"),
                answer(vllm, PlanKvCapacityPollProcessor.METRICS, "vllm:num_requests_running{engine=\"0\"} 0\n"
                        + "vllm:num_requests_running{engine=\"1\"} 0\nvllm:num_requests_running{engine=\"2\"} 0\n")));

        apply.process(e);
        apply.process(e); // the same sizes again: nothing new to say

        assertThat(sglang.dataParallelSize()).isEqualTo(2);
        assertThat(vllm.dataParallelSize()).isEqualTo(3);
        assertThat(changed).containsExactlyInAnyOrder(sglang, vllm);
        assertThat(capacities.capacity("a").tokens()).isEqualTo(64);
    }

    @Test
    void aDeclaredSizeWinsOverTheEnginesReport() {
        Worker declared = Worker.builder("http://a:1").id("a").dataParallelSize(4).build();
        Exchange e = CAMEL.exchange();
        e.getMessage().setBody(List.of(answer(declared, PlanKvCapacityPollProcessor.SERVER_INFO, "{\"dp_size\":2}")));

        apply.process(e);

        assertThat(declared.dataParallelSize()).isEqualTo(4);
        assertThat(changed).isEmpty();
    }
}
