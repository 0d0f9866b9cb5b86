package dev.caravan.processors.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.buffer.Buffer;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.FuzzOracle;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayException;

/**
 * Fuzz target: the worker admin API's inputs through its steps on a real {@link WorkerRegistry}: a
 * {@code POST /workers} body ({@code registerWorker}), a {@code PUT /workers/{id}} body ({@code updateWorker}) and the
 * {@code ?url=} of the legacy {@code /add_worker} and {@code /remove_worker}.
 *
 * <p>Input: byte 0 picks the step (by its value modulo 4), the rest is the body or the URL (UTF-8). Oracle
 * ({@link FuzzOracle}): each step passes or raises a 4xx {@code GatewayException}; the thread allocates within the
 * per-input bound; a rejected update leaves the worker exactly as it was (no half-applied body); a worker the fuzzed
 * input registered is removed again, so the registry holds only the fixed worker between inputs; and afterwards a
 * known worker still registers and is found by its id. Regression inputs: {@code AdminBodyFuzzTestInputs/adminInput/}.
 */
class AdminBodyFuzzTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    static final WorkerRegistry REGISTRY = new WorkerRegistry();
    static final RegisterWorkerProcessor REGISTER = new RegisterWorkerProcessor(REGISTRY);
    static final UpdateWorkerProcessor UPDATE = new UpdateWorkerProcessor(REGISTRY);
    static final AddWorkerByUrlProcessor ADD_BY_URL = new AddWorkerByUrlProcessor(REGISTRY);
    static final RemoveWorkerByUrlProcessor REMOVE_BY_URL = new RemoveWorkerByUrlProcessor(REGISTRY);
    static final String FIXED_URL = "http://10.0.0.1:8000";
    static Worker fixed;

    @BeforeAll
    static void start() {
        fixed = REGISTRY.add(Worker.builder(FIXED_URL).modelId("llama").build());
        assertStillServing(); // warm-up, outside any input's allocation
    }

    @FuzzTest(maxDuration = "60s")
    void adminInput(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        byte[] rest = Arrays.copyOfRange(input, 1, input.length);
        FuzzOracle.allocationOf(rest.length, () -> {
            switch (Math.floorMod(input[0], 4)) {
                case 0 -> FuzzOracle.clientError(() -> REGISTER.process(json(rest)));
                case 1 -> update(rest);
                case 2 -> FuzzOracle.clientError(() -> ADD_BY_URL.process(url(rest)));
                default -> FuzzOracle.clientError(() -> REMOVE_BY_URL.process(url(rest)));
            }
        });
        List.copyOf(REGISTRY.all()).stream().filter(w -> w != fixed).forEach(w -> REGISTRY.remove(w.id()));
        if (REGISTRY.get(fixed.id()).isEmpty()) {
            fixed = REGISTRY.add(Worker.builder(FIXED_URL).modelId("llama").build()); // the input removed it by URL
        }
        assertStillServing();
    }

    private static void update(byte[] body) {
        Map<String, Object> before = comparable(fixed);
        Exchange e = json(body);
        e.getIn().setHeader(WorkerById.ID_HEADER, fixed.id());
        GatewayException rejected = FuzzOracle.clientError(() -> UPDATE.process(e));
        if (rejected != null) {
            assertThat(comparable(fixed)).as("worker after a rejected update (%s)", rejected.getMessage())
                    .isEqualTo(before);
        }
    }

    /** The worker as the admin API shows it, without what traffic changes. */
    private static Map<String, Object> comparable(Worker w) {
        Map<String, Object> info = WorkerJson.info(w);
        info.remove("load");
        info.remove("is_healthy");
        info.put("health_check", w.healthCheck());
        return info;
    }

    private static void assertStillServing() {
        Exchange e = json("{\"url\":\"http://10.0.0.9:8000\",\"model_id\":\"llama\",\"priority\":3}"
                .getBytes(StandardCharsets.UTF_8));
        REGISTER.process(e);
        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(202);
        String location = e.getMessage().getHeader("Location", String.class);
        Worker w = REGISTRY.get(location.substring("/workers/".length())).orElseThrow();
        assertThat(w.url()).isEqualTo("http://10.0.0.9:8000");
        assertThat(w.priority()).isEqualTo(3);
        REGISTRY.remove(w.id());
    }

    private static Exchange json(byte[] body) {
        Exchange e = CAMEL.exchange("Content-Type", "application/json");
        e.getIn().setBody(Buffer.buffer(body));
        return e;
    }

    private static Exchange url(byte[] bytes) {
        return CAMEL.exchange(LegacyWorkerUrl.URL_PARAM, new String(bytes, StandardCharsets.UTF_8));
    }
}
