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
import dev.caravan.processors.Json;
import dev.caravan.processors.StartedCamel;

/** SGLang's per-worker health-check fields on POST/PUT /workers, and what GET /workers shows (never the API key). */
class WorkerHealthFieldsTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final WorkerRegistry workers = new WorkerRegistry();

    @Test
    void registrationTakesTheHealthCheckOverrides() {
        new RegisterWorkerProcessor(workers).process(CAMEL.json("{\"url\":\"http://a:1\",\"health_check_timeout_secs\":3,"
                + "\"health_check_interval_secs\":7,\"health_success_threshold\":1,\"health_failure_threshold\":4,"
                + "\"disable_health_check\":true}"));

        assertThat(workers.all().get(0).healthCheck()).isEqualTo(new WorkerHealthCheck(3L, 7L, 1, 4, true));
    }

    @Test
    void absentFieldsKeepTheGatewaysDefaults() {
        new RegisterWorkerProcessor(workers).process(CAMEL.json("{\"url\":\"http://a:1\"}"));
        assertThat(workers.all().get(0).healthCheck()).isEqualTo(WorkerHealthCheck.DEFAULTS);
    }

    @Test
    void badHealthFieldsAre400NamingTheField() {
        RegisterWorkerProcessor register = new RegisterWorkerProcessor(workers);
        assertThatThrownBy(() -> register.process(CAMEL.json("{\"url\":\"http://a:1\",\"health_check_interval_secs\":0}")))
                .hasMessage("health_check_interval_secs must be >= 1, was 0");
        assertThatThrownBy(() -> register.process(CAMEL.json("{\"url\":\"http://a:1\",\"disable_health_check\":\"yes\"}")))
                .hasMessage("disable_health_check must be a boolean");
        assertThatThrownBy(() -> register.process(CAMEL.json("{\"url\":\"http://a:1\",\"health_failure_threshold\":\"3\"}")))
                .hasMessage("health_failure_threshold must be an integer");
        assertThat(workers.all()).isEmpty();
    }

    @Test
    void anUpdateMergesHealthFieldsIntoTheWorkersOwn() {
        Worker w = workers.add(Worker.builder("http://a:1").healthCheck(new WorkerHealthCheck(3L, 7L, null, null, null))
                .build());
        Exchange e = CAMEL.json("{\"health_check_interval_secs\":30}");
        e.getIn().setHeader("id", w.id());

        new UpdateWorkerProcessor(workers).process(e);

        assertThat(w.healthCheck()).isEqualTo(new WorkerHealthCheck(3L, 30L, null, null, null));
    }

    @Test
    void theWorkerListShowsDisabledHealthChecksAndNeverTheKey() {
        workers.add(Worker.builder("http://a:1").apiKey("sk-secret-123")
                .healthCheck(new WorkerHealthCheck(null, null, null, null, true)).build());
        Exchange e = CAMEL.exchange();

        new ListWorkersProcessor(workers).process(e);

        String body = e.getMessage().getBody(String.class);
        assertThat(body).doesNotContain("sk-secret-123");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> list = (List<Map<String, Object>>) Json.parseObject(body.getBytes()).get("workers");
        assertThat(list.get(0)).containsEntry("disable_health_check", true).doesNotContainKey("api_key");
    }
}
