package dev.caravan.processors.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerHealthCheck;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.Json;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;

class AdminStepsTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final WorkerRegistry workers = new WorkerRegistry();

    private static Map<String, Object> bodyOf(Exchange e) {
        return Json.parseObject(e.getMessage().getBody(String.class).getBytes());
    }

    @Test
    void registersAWorkerWithEveryField() {
        Exchange e = CAMEL.json("{\"url\":\"http://10.0.0.5:8000/\",\"model_id\":\"llama\",\"worker_type\":\"prefill\","
                + "\"bootstrap_port\":8998,\"api_key\":\"k\",\"labels\":{\"zone\":\"a\"},\"priority\":7,\"cost\":2.5,"
                + "\"kv_events_endpoint\":\"tcp://10.0.0.5:5557\",\"kv_replay_endpoint\":\"tcp://10.0.0.5:5558\"}");
        new RegisterWorkerProcessor(workers).process(e);

        Worker w = workers.all().get(0);
        assertThat(w.url()).isEqualTo("http://10.0.0.5:8000");
        assertThat(w.modelId()).isEqualTo("llama");
        assertThat(w.role()).isEqualTo(WorkerRole.PREFILL);
        assertThat(w.bootstrapPort()).isEqualTo(8998);
        assertThat(w.apiKey()).isEqualTo("k");
        assertThat(w.labels()).isEqualTo(Map.of("zone", "a"));
        assertThat(w.priority()).isEqualTo(7);
        assertThat(w.cost()).isEqualTo(2.5);
        assertThat(w.kvEventsEndpoint()).isEqualTo("tcp://10.0.0.5:5557");
        assertThat(w.kvReplayEndpoint()).isEqualTo("tcp://10.0.0.5:5558");
        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(202);
        assertThat(e.getMessage().getHeader("Location")).isEqualTo("/workers/" + w.id());
        assertThat(bodyOf(e)).containsEntry("status", "accepted").containsEntry("worker_id", w.id());
    }

    @Test
    void rejectsAWorkerWithoutUrl() {
        assertThatThrownBy(() -> new RegisterWorkerProcessor(workers).process(CAMEL.json("{\"model_id\":\"x\"}")))
                .hasMessage("url is required and must be a string");
    }

    @Test
    void rejectsFieldsOfTheWrongType() {
        RegisterWorkerProcessor register = new RegisterWorkerProcessor(workers);
        assertThatThrownBy(() -> register.process(CAMEL.json("{\"url\":\"http://a:1\",\"priority\":\"high\"}")))
                .hasMessage("priority must be an integer");
        assertThatThrownBy(() -> register.process(CAMEL.json("{\"url\":\"http://a:1\",\"labels\":{\"z\":1}}")))
                .hasMessage("labels.z must be a string");
        assertThatThrownBy(() -> register.process(CAMEL.json("{\"url\":\"ftp://a:1\"}")))
                .hasMessageContaining("worker url 'ftp://a:1' must start with http:// or https://");
        assertThatThrownBy(() -> register.process(CAMEL.json("{\"url\":\"http://a:1\",\"worker_type\":\"both\"}")))
                .hasMessageContaining("worker_type must be one of regular, prefill, decode");
        assertThat(workers.size()).isZero();
    }

    @Test
    void aDuplicateUrlIs409() {
        workers.add(Worker.builder("http://a:1").build());
        assertThatThrownBy(() -> new RegisterWorkerProcessor(workers).process(CAMEL.json("{\"url\":\"http://a:1\"}")))
                .isInstanceOf(GatewayException.class)
                .satisfies(t -> assertThat(((GatewayException) t).error()).isEqualTo(GatewayError.WORKER_ALREADY_EXISTS));
    }

    @Test
    void listsWorkersWithStatsAndWithoutApiKeys() {
        workers.add(Worker.builder("http://a:1").apiKey("secret").build());
        workers.add(Worker.builder("http://d:1").role(WorkerRole.DECODE).build());
        Exchange e = CAMEL.json("");
        new ListWorkersProcessor(workers).process(e);
        Map<String, Object> body = bodyOf(e);
        assertThat(body).containsEntry("total", 2)
                .containsEntry("stats", Map.of("prefill_count", 0, "decode_count", 1, "regular_count", 1));
        assertThat(e.getMessage().getBody(String.class)).doesNotContain("secret");
    }

    @Test
    void updatesAndRemovesByIdAnd404sUnknownIds() {
        Worker w = workers.add(Worker.builder("http://a:1").build());
        Exchange update = CAMEL.json("{\"priority\":9,\"cost\":0.5,\"labels\":{\"t\":\"x\"},\"api_key\":\"new\"}");
        update.getIn().setHeader("id", w.id());
        new UpdateWorkerProcessor(workers).process(update);
        assertThat(w.priority()).isEqualTo(9);
        assertThat(w.cost()).isEqualTo(0.5);
        assertThat(w.labels()).isEqualTo(Map.of("t", "x"));
        assertThat(w.apiKey()).isEqualTo("new");

        Exchange remove = CAMEL.json("");
        remove.getIn().setHeader("id", w.id());
        new RemoveWorkerProcessor(workers).process(remove);
        assertThat(workers.size()).isZero();
        assertThat(remove.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(202);

        Exchange get = CAMEL.json("");
        get.getIn().setHeader("id", w.id());
        assertThatThrownBy(() -> new GetWorkerProcessor(workers).process(get))
                .hasMessage("no worker with id " + w.id());
    }

    @Test
    void aRejectedUpdateChangesNothing() {
        Worker w = workers.add(Worker.builder("http://a:1").build());
        Exchange update = CAMEL.json("{\"priority\":5,\"cost\":2.0,\"health_failure_threshold\":4,"
                + "\"runtime\":\"tgi\"}");
        update.getIn().setHeader("id", w.id());

        assertThatThrownBy(() -> new UpdateWorkerProcessor(workers).process(update))
                .hasMessage("runtime must be one of sglang, vllm, was 'tgi'");
        assertThat(w.priority()).isEqualTo(Worker.builder("http://a:1").build().priority());
        assertThat(w.cost()).isEqualTo(Worker.builder("http://a:1").build().cost());
        assertThat(w.healthCheck()).isEqualTo(WorkerHealthCheck.DEFAULTS);
    }

    @Test
    void legacyEndpointsAddListAndRemoveByUrl() {
        Exchange add = CAMEL.json("");
        add.getIn().setHeader("url", "http://a:1");
        new AddWorkerByUrlProcessor(workers).process(add);
        assertThat(add.getMessage().getBody()).isEqualTo("Successfully added worker: http://a:1");

        Exchange list = CAMEL.json("");
        new ListWorkerUrlsProcessor(workers).process(list);
        assertThat(bodyOf(list)).isEqualTo(Map.of("urls", List.of("http://a:1")));

        Exchange remove = CAMEL.json("");
        remove.getIn().setHeader("url", "http://a:1/");
        new RemoveWorkerByUrlProcessor(workers).process(remove);
        assertThat(workers.size()).isZero();
        assertThatThrownBy(() -> new RemoveWorkerByUrlProcessor(workers).process(remove))
                .hasMessage("no worker with url http://a:1/");
        assertThatThrownBy(() -> new AddWorkerByUrlProcessor(workers).process(CAMEL.json("")))
                .hasMessageContaining("query parameter url is required");
    }
}
