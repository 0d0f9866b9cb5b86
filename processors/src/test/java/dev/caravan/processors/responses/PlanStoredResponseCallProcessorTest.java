package dev.caravan.processors.responses;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.control.ControlCall;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;

class PlanStoredResponseCallProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final WorkerRegistry workers = new WorkerRegistry();
    private final ResponseAffinity affinity = new ResponseAffinity(10, Duration.ofMinutes(1), () -> 0L);
    private final PlanStoredResponseCallProcessor plan = new PlanStoredResponseCallProcessor(affinity, workers);
    private final Worker a = workers.add(Worker.builder("http://a:1").build());
    private final Worker b = workers.add(Worker.builder("http://b:1").dataParallelRank(1, 2).build());

    private Exchange request(String method, String id, String query) {
        Exchange e = CAMEL.exchange(PlanStoredResponseCallProcessor.ID_HEADER, id);
        e.getIn().setHeader(Exchange.HTTP_METHOD, method);
        e.getIn().setHeader(Exchange.HTTP_QUERY, query);
        return e;
    }

    @SuppressWarnings("unchecked")
    private List<ControlCall> planned(Exchange e) {
        plan.process(e);
        return (List<ControlCall>) e.getMessage().getBody(List.class);
    }

    @Test
    void callsOnlyTheWorkerThatStoredTheResponseWithTheClientsMethod() {
        affinity.onResponseId("resp_1", a);
        affinity.onResponseId("resp_2", b);
        assertThat(planned(request("GET", "resp_1", null)))
                .containsExactly(new ControlCall(a, "GET", "/v1/responses/resp_1", null));
        assertThat(planned(request("DELETE", "resp_2", null)))
                .containsExactly(new ControlCall(b, "DELETE", "/v1/responses/resp_2", null));
        // a rank worker's call goes to its engine, as every control call
        assertThat(planned(request("DELETE", "resp_2", null)).get(0).url())
                .isEqualTo("http://b:1/v1/responses/resp_2");
    }

    @Test
    void postIsTheCancelAndTheQueryIsKept() {
        affinity.onResponseId("resp_1", a);
        assertThat(planned(request("POST", "resp_1", null)))
                .containsExactly(new ControlCall(a, "POST", "/v1/responses/resp_1/cancel", null));
        assertThat(planned(request("GET", "resp_1", "include=reasoning")).get(0).path())
                .isEqualTo("/v1/responses/resp_1?include=reasoning");
    }

    @Test
    void anUnknownIdIsNotFoundWithoutAskingAnEngine() {
        Exchange e = request("GET", "resp_nope", null);
        assertThatThrownBy(() -> plan.process(e)).isInstanceOfSatisfying(GatewayException.class, x ->
                assertThat(x.error()).isEqualTo(GatewayError.RESPONSE_NOT_FOUND))
                .hasMessage("Response with id 'resp_nope' not found.");
    }

    @Test
    void aResponseWhoseWorkerLeftIsNotFound() {
        affinity.onResponseId("resp_1", a);
        workers.remove(a.id());
        assertThatThrownBy(() -> plan.process(request("GET", "resp_1", null)))
                .hasMessage("Response with id 'resp_1' not found: the worker that stored it has left.");
    }
}
