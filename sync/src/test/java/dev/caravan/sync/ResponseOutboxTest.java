package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class ResponseOutboxTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ResponseOutbox outbox = new ResponseOutbox(new SyncMetrics(registry, () -> 1, () -> 0));

    @Test
    void drainsWhatWaitsInBatchesThenNothing() {
        for (int i = 0; i < ResponseOutbox.BATCH + 5; i++) {
            outbox.add("resp_" + i, "http://w" + (i % 2) + ":1");
        }
        assertThat(outbox.drain()).hasSize(ResponseOutbox.BATCH).containsEntry("resp_0", "http://w0:1");
        assertThat(outbox.drain()).hasSize(5).containsEntry("resp_" + (ResponseOutbox.BATCH + 4), "http://w0:1");
        assertThat(outbox.drain()).isNull();
    }

    @Test
    void dropsAndCountsIdsBeyondItsCapacity() {
        for (int i = 0; i < ResponseOutbox.CAPACITY + 3; i++) {
            outbox.add("resp_" + i, "http://w:1");
        }
        assertThat(registry.get("caravan.sync.outbox.dropped").tag("channel", "responses").counter().count())
                .isEqualTo(3.0);
        int drained = 0;
        for (var batch = outbox.drain(); batch != null; batch = outbox.drain()) {
            drained += batch.size();
        }
        assertThat(drained).isEqualTo(ResponseOutbox.CAPACITY);
    }
}
