package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.zeromq.ZContext;

class ReplayClientTest {

    private final ZContext context = new ZContext(1);
    private final Map<Long, byte[]> buffer = Map.of(
            4L, KvTestPayloads.stored(0, 40),
            5L, KvTestPayloads.stored(0, 50),
            6L, KvTestPayloads.removed(0, 40));

    @AfterEach
    void tearDown() {
        context.close();
    }

    @ParameterizedTest
    @EnumSource(value = ReplayServer.Layout.class, names = {"WITHOUT_TOPIC", "WITH_TOPIC"})
    void collectsEveryBatchFromTheStartUntilTheEndMarkerInBothLayouts(ReplayServer.Layout layout) throws Exception {
        try (ReplayServer engine = new ReplayServer(layout, "kv@a@m", buffer)) {
            ReplayClient client = new ReplayClient(context, engine.endpoint(), Duration.ofSeconds(10), System::nanoTime);

            ReplayClient.Result result = client.replayFrom(5);

            assertThat(result.complete()).isTrue();
            assertThat(result.batches()).extracting(ReplayClient.Replayed::sequence).containsExactly(5L, 6L);
            assertThat(result.batches().get(0).payload()).isEqualTo(buffer.get(5L));
            assertThat(result.batches().get(0).topic()).isEqualTo(layout == ReplayServer.Layout.WITH_TOPIC ? "kv@a@m" : null);
            assertThat(engine.requestedStarts()).containsExactly(5L);
        }
    }

    @Test
    void aStartOlderThanTheBufferReturnsOnlyWhatIsRetained() throws Exception {
        try (ReplayServer engine = new ReplayServer(ReplayServer.Layout.WITH_TOPIC, "", buffer)) {
            ReplayClient client = new ReplayClient(context, engine.endpoint(), Duration.ofSeconds(10), System::nanoTime);

            ReplayClient.Result result = client.replayFrom(1);

            assertThat(result.complete()).isTrue();
            assertThat(result.batches()).extracting(ReplayClient.Replayed::sequence).containsExactly(4L, 5L, 6L);
            assertThat(result.batches().get(0).topic()).isEmpty();
        }
    }

    @Test
    void givesUpAtTheTimeoutWhenTheEngineNeverAnswers() throws Exception {
        try (ReplayServer engine = new ReplayServer(ReplayServer.Layout.SILENT, "", buffer)) {
            ReplayClient client = new ReplayClient(context, engine.endpoint(), Duration.ofMillis(300), System::nanoTime);

            ReplayClient.Result result = client.replayFrom(4);

            assertThat(result.complete()).isFalse();
            assertThat(result.batches()).isEmpty();
        }
    }
}
