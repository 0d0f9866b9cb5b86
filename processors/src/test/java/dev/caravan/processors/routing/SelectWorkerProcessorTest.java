package dev.caravan.processors.routing;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.EXCLUDED_WORKERS;
import static dev.caravan.processors.CaravanExchangeProperties.LEASE;
import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.ROUTING_TEXT;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.CacheScope;
import dev.caravan.policies.Decision;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;

class SelectWorkerProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final WorkerRegistry workers = new WorkerRegistry();
    private final List<RecordingPolicy> created = new ArrayList<>();
    private final PolicyRegistry policies = new PolicyRegistry(workers, m -> {
        RecordingPolicy p = new RecordingPolicy(m);
        created.add(p);
        return p;
    });
    private final List<Decision> decisions = new ArrayList<>();
    private final SelectWorkerProcessor select = new SelectWorkerProcessor(policies, decisions::add);

    private static Exchange exchange() {
        Exchange e = CAMEL.exchange();
        ROUTING_TEXT.set(e, "hello world");
        e.getIn().setHeader("X-SMG-Routing-Key", "user-1");
        return e;
    }

    @Test
    void choosesThroughThePolicyAndTakesALease() {
        Worker a = workers.add(Worker.builder("http://a:1").build());
        Exchange e = exchange();

        select.process(e);

        assertThat(WORKER.get(e)).isSameAs(a);
        assertThat(DECISION.get(e).label()).isEqualTo("recording:first");
        assertThat(LEASE.get(e).worker()).isSameAs(a);
        assertThat(a.load()).isEqualTo(1);
        assertThat(decisions).extracting(Decision::label).containsExactly("recording:first");
        assertThat(created.get(0).contexts.get(0).requestText()).isEqualTo("hello world");
        assertThat(created.get(0).contexts.get(0).header("x-smg-routing-key")).isEqualTo("user-1");
    }

    @Test
    void completingTheExchangeReleasesTheLeaseOnceAndReportsTheOutcome() {
        Worker a = workers.add(Worker.builder("http://a:1").build());
        Exchange e = exchange();
        select.process(e);
        LEASE.get(e).release(); // the forward step released it
        RESPONSE_STATUS.set(e, 200);
        OUTCOME.set(e, "completed");

        e.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(e));

        assertThat(a.load()).isZero();
        assertThat(created.get(0).events).endsWith("complete http://a:1 true");
    }

    @Test
    void aFailedExchangeStillReleasesTheLease() {
        Worker a = workers.add(Worker.builder("http://a:1").build());
        Exchange e = exchange();
        select.process(e);
        RESPONSE_STATUS.set(e, 502);

        e.getExchangeExtension().handoverCompletions().forEach(s -> s.onFailure(e));

        assertThat(a.load()).isZero();
        assertThat(created.get(0).events).endsWith("complete http://a:1 false");
    }

    @Test
    void skipsUnavailableWorkers() {
        Worker a = workers.add(Worker.builder("http://a:1").build());
        Worker b = workers.add(Worker.builder("http://b:1").build());
        a.setHealthy(false);
        Exchange e = exchange();
        select.process(e);
        assertThat(WORKER.get(e)).isSameAs(b);
    }

    @Test
    void noHealthyWorkerIs503() {
        workers.add(Worker.builder("http://a:1").build()).setHealthy(false);
        assertThatThrownBy(() -> select.process(exchange())).isInstanceOf(GatewayException.class)
                .hasMessage("No available workers (all circuits open or unhealthy)")
                .satisfies(t -> assertThat(((GatewayException) t).error()).isEqualTo(GatewayError.NO_AVAILABLE_WORKERS));
    }

    @Test
    void noWorkersAtAllIs503() {
        assertThatThrownBy(() -> select.process(exchange())).hasMessage("No workers are registered");
    }

    @Test
    void onlyPrefillAndDecodeWorkersIs503SayingARegularOneIsNeeded() {
        workers.add(Worker.builder("http://p:1").role(WorkerRole.PREFILL).build());
        workers.add(Worker.builder("http://d:1").role(WorkerRole.DECODE).build());
        assertThatThrownBy(() -> select.process(exchange())).hasMessage("No regular workers are registered (the "
                + "registered ones are decode and prefill workers; embeddings and the Responses API need a regular "
                + "worker)");
    }

    @Test
    void aDecliningPolicyIs503AndIsCounted() {
        Worker a = workers.add(Worker.builder("http://a:1").build());
        created.get(0).decline = true;
        assertThatThrownBy(() -> select.process(exchange())).hasMessage("No available workers (recording:declined)");
        assertThat(a.load()).isZero();
        assertThat(decisions).extracting(Decision::label).containsExactly("recording:declined");
    }

    @Test
    void aRetryAvoidsTheWorkersThatFailedTheRequest() {
        Worker a = workers.add(Worker.builder("http://a:1").build());
        Worker b = workers.add(Worker.builder("http://b:1").build());
        Exchange e = exchange();
        EXCLUDED_WORKERS.set(e, java.util.Set.of(a));

        select.process(e);

        assertThat(WORKER.get(e)).isSameAs(b);
        assertThat(created.get(0).contexts).hasSize(1);
    }

    @Test
    void whenEveryAvailableWorkerFailedTheRequestTheyAreCandidatesAgain() {
        Worker a = workers.add(Worker.builder("http://a:1").build());
        Worker b = workers.add(Worker.builder("http://b:1").build());
        b.setAvailabilityGate(() -> false); // b's breaker is open
        Exchange e = exchange();
        EXCLUDED_WORKERS.set(e, java.util.Set.of(a));

        select.process(e);

        assertThat(WORKER.get(e)).isSameAs(a);
    }

    @Test
    void passesTheRequestsCacheSaltAndAdapterNameToThePolicy() {
        workers.add(Worker.builder("http://a:1").build());
        Exchange e = exchange();
        MODEL.set(e, "sql-lora");
        REQUEST_JSON.set(e, java.util.Map.of("model", "sql-lora", "cache_salt", "tenant-a"));

        select.process(e);

        assertThat(created.get(0).contexts.get(0).cacheScope()).isEqualTo(new CacheScope("sql-lora", "tenant-a"));
    }

    @Test
    void sglangsLoraPathNamesTheAdapterAndNonStringFieldsCountAsAbsent() {
        Exchange e = exchange();
        MODEL.set(e, "base");
        REQUEST_JSON.set(e, java.util.Map.of("lora_path", "adapter-1", "cache_salt", 42));

        assertThat(CacheScopes.of(e)).isEqualTo(new CacheScope("adapter-1", null));
        assertThat(CacheScopes.of(exchange())).isSameAs(CacheScope.NONE);
    }

    @Test
    void recordsTheDecisionWithTheRankThePolicyChoseAndLeavesThePinToItsStep() {
        workers.add(Worker.builder("http://a:1").build());
        select.process(exchange()); // creates the policy
        created.get(0).rank = 1;
        Exchange e = exchange();

        select.process(e);

        assertThat(DECISION.get(e).dataParallelRank()).isEqualTo(1);
        assertThat(e.getIn().getHeaders()).doesNotContainKey("X-data-parallel-rank"); // pinDataParallelRank's job
    }

    @Test
    void releasingTheLeaseRunsTheDecisionsReleaseAction() {
        Worker a = workers.add(Worker.builder("http://a:1").build());
        Exchange e = exchange();

        select.process(e);
        LEASE.get(e).release();

        assertThat(created.get(0).events).contains("released " + a.url());
    }
}
