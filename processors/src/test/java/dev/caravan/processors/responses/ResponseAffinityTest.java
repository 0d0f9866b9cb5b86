package dev.caravan.processors.responses;

import static dev.caravan.processors.CaravanExchangeProperties.PREFERRED_WORKER;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Worker;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.forward.ResponseIdSink;

class ResponseAffinityTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final AtomicLong now = new AtomicLong();
    private final Worker a = Worker.builder("http://a:1").build();
    private final Worker b = Worker.builder("http://b:1").build();

    @Test
    void remembersWhichWorkerStoredAResponse() {
        ResponseAffinity affinity = new ResponseAffinity(10, Duration.ofMinutes(1), now::get);
        affinity.onResponseId("resp_1", a);
        affinity.onResponseId("resp_2", b);
        assertThat(affinity.workerOf("resp_1")).isEqualTo("http://a:1");
        assertThat(affinity.workerOf("resp_2")).isEqualTo("http://b:1");
        assertThat(affinity.workerOf("resp_3")).isNull();
    }

    @Test
    void tellsTheListenerOfOwnIdsButNotOfThoseRememberedFromPeers() {
        ResponseAffinity affinity = new ResponseAffinity(10, Duration.ofMinutes(1), now::get);
        List<String> told = new ArrayList<>();
        affinity.onStored((id, url) -> told.add(id + "@" + url));
        affinity.onResponseId("resp_own", a);
        affinity.remember("resp_peer", "http://b:1");
        assertThat(told).containsExactly("resp_own@http://a:1");
        assertThat(affinity.workerOf("resp_peer")).isEqualTo("http://b:1");
    }

    @Test
    void forgetsAnIdUnusedForTheTtlButAUseKeepsItAlive() {
        ResponseAffinity affinity = new ResponseAffinity(10, Duration.ofSeconds(60), now::get);
        affinity.onResponseId("kept", a);
        affinity.onResponseId("dropped", a);
        now.addAndGet(Duration.ofSeconds(59).toNanos());
        assertThat(affinity.workerOf("kept")).isEqualTo("http://a:1");
        now.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(affinity.workerOf("dropped")).isNull();
        assertThat(affinity.workerOf("kept")).isEqualTo("http://a:1");
    }

    @Test
    void dropsTheLeastRecentlyUsedIdBeyondItsBound() {
        ResponseAffinity affinity = new ResponseAffinity(2, Duration.ofMinutes(1), now::get);
        affinity.onResponseId("r1", a);
        affinity.onResponseId("r2", a);
        affinity.workerOf("r1");
        affinity.onResponseId("r3", b);
        assertThat(affinity.size()).isEqualTo(2);
        assertThat(affinity.workerOf("r2")).isNull();
        assertThat(affinity.workerOf("r1")).isEqualTo("http://a:1");
    }

    @Test
    void rejectsABadBoundOrTtl() {
        assertThatThrownBy(() -> new ResponseAffinity(0, Duration.ofMinutes(1), now::get))
                .hasMessage("maxEntries must be >= 1, was 0");
        assertThatThrownBy(() -> new ResponseAffinity(1, Duration.ZERO, now::get)).hasMessage("ttl must be > 0, was PT0S");
    }

    private static Exchange request(String kind, Map<String, Object> json) {
        Exchange e = CAMEL.exchange();
        REQUEST_KIND.set(e, kind);
        REQUEST_JSON.set(e, json);
        return e;
    }

    @Test
    void aContinuationPrefersTheWorkerThatStoredItsPreviousResponse() {
        ResponseAffinity affinity = new ResponseAffinity(10, Duration.ofMinutes(1), now::get);
        affinity.onResponseId("resp_1", b);
        RecallPreviousResponseProcessor recall = new RecallPreviousResponseProcessor(affinity);

        Exchange next = request("responses", Map.of("input", "more", "previous_response_id", "resp_1"));
        recall.process(next);
        assertThat(PREFERRED_WORKER.get(next)).isEqualTo("http://b:1");
        assertThat(ResponseIdSink.PROPERTY.get(next)).isSameAs(affinity);

        Exchange unknown = request("responses", Map.of("input", "x", "previous_response_id", "resp_9"));
        recall.process(unknown);
        assertThat(PREFERRED_WORKER.get(unknown)).isNull();

        Exchange chat = request("chat", Map.of("previous_response_id", "resp_1"));
        recall.process(chat);
        assertThat(PREFERRED_WORKER.get(chat)).isNull();
        assertThat(ResponseIdSink.PROPERTY.get(chat)).isNull();

        assertThatThrownBy(() -> recall.process(request("responses", Map.of("previous_response_id", 7))))
                .hasMessage("previous_response_id must be a non-empty string");
    }
}
