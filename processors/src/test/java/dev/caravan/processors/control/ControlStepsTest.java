package dev.caravan.processors.control;

import static dev.caravan.processors.CaravanExchangeProperties.CONTROL_ERROR;
import static dev.caravan.processors.CaravanExchangeProperties.CONTROL_URL;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.Json;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;
import dev.caravan.processors.routing.PolicyRegistry;

class ControlStepsTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final WorkerRegistry workers = new WorkerRegistry();
    private final Worker a = workers.add(Worker.builder("http://a:1").apiKey("ka").build());
    private final Worker b = workers.add(Worker.builder("http://b:1").build());

    private static Exchange exchange(Object body) {
        Exchange e = CAMEL.exchange();
        e.getMessage().setBody(body);
        return e;
    }

    private static Exchange response(ControlCall call, int status, String body) {
        Exchange e = exchange(body);
        ControlCall.PROPERTY.set(e, call);
        e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        e.getMessage().setHeader("Server", "engine");
        return e;
    }

    private static Exchange failure(ControlCall call, String reason) {
        Exchange e = exchange(null);
        ControlCall.PROPERTY.set(e, call);
        CONTROL_ERROR.set(e, reason);
        return e;
    }

    private static Exchange collect(Exchange... subs) {
        CollectControlResultsStrategy s = new CollectControlResultsStrategy();
        Exchange agg = null;
        for (Exchange sub : subs) {
            agg = s.aggregate(agg, sub);
        }
        return agg;
    }

    @Test
    void plansOneCallPerWorkerAndPathSkippingUnhealthyWhenAsked() {
        b.setHealthy(false);
        Exchange e = exchange(null);
        new PlanControlCallsProcessor(workers, PlanControlCallsProcessor.Scope.HEALTHY, "GET",
                List.of("/get_load", "/metrics")).process(e);
        assertThat(e.getMessage().getBody(List.class)).extracting(c -> ((ControlCall) c).url())
                .containsExactly("http://a:1/get_load", "http://a:1/metrics");
    }

    @Test
    void preparingACallDropsInheritedHeadersAndSendsTheWorkersKey() {
        Exchange e = exchange(new ControlCall(a, "POST", "/flush_cache", null));
        e.getIn().setHeader("Authorization", "Bearer client");
        e.getIn().setHeader("CamelHttpUri", "/v1/chat/completions");
        new PrepareControlCallProcessor("gateway-key").process(e);
        assertThat(e.getIn().getHeaders()).containsOnlyKeys("CamelHttpMethod", "Authorization");
        assertThat(e.getIn().getHeader("Authorization")).isEqualTo("Bearer ka");
        assertThat(CONTROL_URL.get(e)).isEqualTo("http://a:1/flush_cache");
    }

    @Test
    void collectsResultsAndClearsWorkerResponseHeaders() {
        ControlCall ca = new ControlCall(a, "GET", "/v1/models", null);
        ControlCall cb = new ControlCall(b, "GET", "/v1/models", null);
        Exchange agg = collect(response(ca, 200, "{}"), failure(cb, "Connection refused"));
        assertThat(agg.getMessage().getHeaders()).isEmpty();
        assertThat(ControlResults.of(agg)).containsExactly(new ControlResult(ca, 200, "{}", null),
                new ControlResult(cb, -1, null, "Connection refused"));
    }

    @Test
    void appliesEngineLoadsFromGetLoadAndMetrics() {
        Exchange agg = collect(
                response(new ControlCall(a, "GET", "/get_load", null), 200, "[{\"num_tokens\":300,\"num_reqs\":9}]"),
                response(new ControlCall(a, "GET", "/metrics", null), 200,
                        "vllm:num_requests_running 2\nvllm:num_requests_waiting 7\nvllm:kv_cache_usage_perc 0.5\n"),
                failure(new ControlCall(b, "GET", "/get_load", null), "refused"),
                failure(new ControlCall(b, "GET", "/metrics", null), "refused"));
        new ApplyEngineLoadsProcessor(() -> 42L).process(agg);
        assertThat(a.engineLoad()).isEqualTo(new EngineLoad(300, 2, 7, 0.5, 42L));
        assertThat(b.engineLoad()).isNull();
    }

    /** A registry of {@code role}'s workers whose policy records each worker it forgets into {@code events}. */
    private PolicyRegistry recording(WorkerRole role, List<String> events) {
        return new PolicyRegistry(workers, role, m -> new dev.caravan.policies.LoadBalancingPolicy() {
            @Override
            public dev.caravan.policies.Decision select(List<Worker> c, dev.caravan.policies.SelectionContext x) {
                return dev.caravan.policies.Decision.of(c.get(0), "t", "t");
            }

            @Override
            public String name() {
                return "t";
            }

            @Override
            public void onWorkerRemoved(Worker w) {
                events.add("removed " + w.url());
            }
        });
    }

    @Test
    void summarizesAPartialFlushAndForgetsTheFlushedWorkersCache() {
        List<String> events = new ArrayList<>();
        PolicyRegistry policies = recording(WorkerRole.REGULAR, events);
        Exchange agg = collect(response(new ControlCall(a, "POST", "/flush_cache", null), 200, "ok"),
                response(new ControlCall(b, "POST", "/flush_cache", null), 500, "err"));
        new SummarizeFlushCacheProcessor(workers, List.of(policies)).process(agg);

        assertThat(agg.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(200);
        Map<String, Object> body = Json.parseObject(agg.getMessage().getBody(String.class).getBytes());
        assertThat(body).containsEntry("status", "partial_success").containsEntry("workers_flushed", 1)
                .containsEntry("total_http_workers", 2).containsEntry("successful", List.of("http://a:1"))
                .containsEntry("failed", List.of(Map.of("worker", "http://b:1", "error", "HTTP 500")));
        assertThat(events).containsExactly("removed http://a:1");
    }

    @Test
    void aFlushedPrefillEngineIsForgottenByThePrefillPoolsPolicy() {
        Worker p = workers.add(Worker.builder("http://p:1").role(WorkerRole.PREFILL).build());
        List<String> regular = new ArrayList<>();
        List<String> prefill = new ArrayList<>();
        PolicyRegistry regularPolicies = recording(WorkerRole.REGULAR, regular);
        PolicyRegistry prefillPolicies = recording(WorkerRole.PREFILL, prefill);
        Exchange agg = collect(response(new ControlCall(p, "POST", "/flush_cache", null), 200, "ok"));
        new SummarizeFlushCacheProcessor(workers, List.of(regularPolicies, prefillPolicies)).process(agg);
        assertThat(prefill).containsExactly("removed http://p:1");
        assertThat(regular).isEmpty();
    }

    @Test
    void mergesModelsInWorkerOrderWithoutDuplicates() {
        Exchange agg = collect(
                response(new ControlCall(b, "GET", "/v1/models", null), 200,
                        "{\"data\":[{\"id\":\"m2\"},{\"id\":\"m1\"}]}"),
                response(new ControlCall(a, "GET", "/v1/models", null), 200, "{\"data\":[{\"id\":\"m1\"}]}"));
        new MergeModelsProcessor(workers).process(agg);
        assertThat(agg.getMessage().getBody(String.class))
                .isEqualTo("{\"object\":\"list\",\"data\":[{\"id\":\"m1\"},{\"id\":\"m2\"}]}");
    }

    private static Exchange retrieve(String path, String mergedList) {
        Exchange e = exchange(mergedList);
        e.getMessage().setHeader(Exchange.HTTP_PATH, path);
        new ModelFromPathProcessor().process(e);
        new RetrieveModelProcessor().process(e);
        return e;
    }

    @Test
    void retrievesOneModelOfTheMergedListByItsDecodedId() {
        Exchange e = retrieve("/v1/models/org%2Fm+2", "{\"object\":\"list\",\"data\":[{\"id\":\"m1\"},"
                + "{\"id\":\"org/m+2\",\"owned_by\":\"vllm\"}]}");
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("{\"id\":\"org/m+2\",\"owned_by\":\"vllm\"}");
        assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(200);
    }

    @Test
    void retrievesAModelWhoseIdArrivesWithRawSlashes() {
        Exchange e = retrieve("/v1/models/org/m1", "{\"object\":\"list\",\"data\":[{\"id\":\"org/m1\"}]}");
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("{\"id\":\"org/m1\"}");
    }

    @Test
    void aModelNoWorkerListsIs404InOpenAisWords() {
        assertThatThrownBy(() -> retrieve("/v1/models/m2", "{\"object\":\"list\",\"data\":[{\"id\":\"m1\"}]}"))
                .isInstanceOfSatisfying(GatewayException.class,
                        g -> assertThat(g.error()).isEqualTo(GatewayError.MODEL_NOT_FOUND))
                .hasMessage("The model `m2` does not exist.");
    }

    @Test
    void nothingAfterTheModelsPrefixLeavesTheList() {
        String list = "{\"object\":\"list\",\"data\":[{\"id\":\"m1\"}]}";
        assertThat(retrieve("/v1/models/", list).getMessage().getBody(String.class)).isEqualTo(list);
    }

    @Test
    void aMalformedPercentEscapeInTheModelIdIs400() {
        assertThatThrownBy(() -> retrieve("/v1/models/m%zz", "{\"object\":\"list\",\"data\":[]}"))
                .isInstanceOfSatisfying(GatewayException.class,
                        g -> assertThat(g.error()).isEqualTo(GatewayError.INVALID_REQUEST));
    }

    @Test
    void modelsWithoutHealthyWorkersIs503() {
        assertThatThrownBy(() -> new MergeModelsProcessor(workers).process(exchange(List.of())))
                .hasMessage("No healthy workers to list models from");
    }

    @Test
    void summarizesLoadsWithMinusOneForSilentWorkers() {
        Exchange agg = collect(response(new ControlCall(a, "GET", "/get_load", null), 200, "{\"num_tokens\":5}"));
        new SummarizeLoadsProcessor(workers).process(agg);
        assertThat(agg.getMessage().getBody(String.class)).isEqualTo("{\"workers\":["
                + "{\"worker\":\"http://a:1\",\"load\":5,\"in_flight\":0},"
                + "{\"worker\":\"http://b:1\",\"load\":-1,\"in_flight\":0}]}");
    }

    @Test
    void checkControlAnswerFailsOnlyOnAnswersTheBreakerCountsAsFailures() {
        ControlCall call = new ControlCall(a, "GET", "/get_load", null);
        CheckControlAnswerProcessor check = new CheckControlAnswerProcessor();
        for (int neutralOrFine : new int[] {200, 204, 404, 429, 503}) {
            Exchange e = response(call, neutralOrFine, "x");
            check.process(e);
            assertThat(e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(neutralOrFine);
        }
        assertThatThrownBy(() -> check.process(response(call, 500, "{\"error\":\"boom\"}")))
                .isInstanceOfSatisfying(ControlCallFailedException.class, f -> {
                    assertThat(f.status()).isEqualTo(500);
                    assertThat(f.body()).isEqualTo("{\"error\":\"boom\"}");
                })
                .hasMessage("HTTP 500 from http://a:1/get_load");
    }

    @Test
    void recordControlFailureKeepsTheAnswerOfACountedFailureAndNamesAnOpenBreaker() {
        ControlCall call = new ControlCall(a, "POST", "/flush_cache", null);
        Exchange answered = exchange(null);
        ControlCall.PROPERTY.set(answered, call);
        answered.setProperty(Exchange.EXCEPTION_CAUGHT, new ControlCallFailedException(call.url(), 502, "bad gateway"));
        new RecordControlFailureProcessor().process(answered);
        assertThat(CONTROL_ERROR.get(answered)).isNull();
        assertThat(collect(answered).getMessage().getBody(List.class)).containsExactly(
                new ControlResult(call, 502, "bad gateway", null));

        Exchange refused = exchange(null);
        ControlCall.PROPERTY.set(refused, call);
        refused.setProperty(Exchange.EXCEPTION_CAUGHT, io.github.resilience4j.circuitbreaker.CallNotPermittedException
                .createCallNotPermittedException(io.github.resilience4j.circuitbreaker.CircuitBreaker.ofDefaults("w")));
        new RecordControlFailureProcessor().process(refused);
        assertThat(CONTROL_ERROR.get(refused)).isEqualTo("circuit breaker open");

        Exchange wrapped = exchange(null);
        ControlCall.PROPERTY.set(wrapped, call);
        wrapped.setProperty(Exchange.EXCEPTION_CAUGHT, new org.apache.camel.RuntimeCamelException(
                new java.util.concurrent.TimeoutException("no answer from http://a:1/flush_cache within 5000 ms")));
        new RecordControlFailureProcessor().process(wrapped);
        assertThat(CONTROL_ERROR.get(wrapped)).isEqualTo("no answer from http://a:1/flush_cache within 5000 ms");
    }

    @Test
    void prepareControlCallNamesTheWorkersControlRoute() {
        Exchange e = exchange(new ControlCall(b, "GET", "/v1/models", null));
        new PrepareControlCallProcessor(null).process(e);
        assertThat(ControlCall.WORKER_ID.get(e)).isEqualTo(b.id());
    }
}
