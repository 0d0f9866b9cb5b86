package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.ParityConfig;
import dev.caravan.policies.kv.ParityTracker;

class KvEventIngestorTest {

    private static final String MODEL = "m";
    private static final String TOPIC = "kv@w1@m";
    private final AtomicLong now = new AtomicLong();
    private final KvBlockIndex index = new KvBlockIndex();
    private final ParityTracker parity = new ParityTracker(ParityConfig.defaults(), now::get);
    private final KvEventIngestor ingestor = new KvEventIngestor(List.of(index, parity), Duration.ofSeconds(10),
            System::nanoTime);

    @AfterEach
    void tearDown() {
        ingestor.close();
    }

    private Worker worker(String id, String replayEndpoint) {
        Worker w = Worker.builder("http://" + id + ":8000").id(id).modelId(MODEL).kvEventsEndpoint("tcp://" + id + ":5557")
                .kvReplayEndpoint(replayEndpoint).build();
        ingestor.register(w);
        return w;
    }

    private void send(String workerId, long seq, byte[] payload) throws KvDecodeException {
        ingestor.onMessage(workerId, KvTestPayloads.message(TOPIC, seq, payload));
    }

    @Test
    void appliesStoredRemovedAndClearedEventsToTheIndex() throws Exception {
        worker("w1", null);
        worker("w2", null);
        send("w2", 0, KvTestPayloads.stored(0, 1));

        send("w1", 0, KvTestPayloads.stored(0, 1, 2, 3));
        send("w1", 1, KvTestPayloads.removed(0, 2));
        assertThat(index.longestPrefixes(MODEL, new long[] {1, 2, 3}).matched()).containsEntry("w1", 1).containsEntry("w2", 1);
        assertThat(index.residentBlocks("w1")).isEqualTo(2);

        send("w1", 2, KvTestPayloads.cleared(0));

        assertThat(index.residentBlocks("w1")).isZero();
        assertThat(index.residentBlocks("w2")).isEqualTo(1);
        KvWorkerStats s = ingestor.stats("w1");
        assertThat(s.batches()).isEqualTo(3);
        assertThat(s.blockStoredEvents()).isEqualTo(1);
        assertThat(s.blockRemovedEvents()).isEqualTo(1);
        assertThat(s.allBlocksClearedEvents()).isEqualTo(1);
        assertThat(s.gaps()).isZero();
    }

    @Test
    void confirmsParityPredictionsFromStoredEvents() throws Exception {
        worker("w1", null);
        parity.expect("w1", new long[] {7, 8});

        send("w1", 0, KvTestPayloads.stored(0, 7, 8, 9));

        assertThat(parity.snapshot().matched()).isEqualTo(2);
    }

    @Test
    void ignoresEventsAboutOtherMedia() throws Exception {
        worker("w1", null);

        send("w1", 0, KvTestPayloads.storedOnCpu(5));

        assertThat(index.residentBlocks("w1")).isZero();
        assertThat(ingestor.stats("w1").nonGpuEvents()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(value = ReplayServer.Layout.class, names = {"WITHOUT_TOPIC", "WITH_TOPIC"})
    void aGapIsHealedByReplayBeforeTheLiveBatchIsApplied(ReplayServer.Layout layout) throws Exception {
        Map<Long, byte[]> engineBuffer = Map.of(
                10L, KvTestPayloads.stored(0, 100),
                11L, KvTestPayloads.stored(0, 110),
                12L, KvTestPayloads.removed(0, 100),
                13L, KvTestPayloads.stored(0, 130),
                14L, KvTestPayloads.stored(0, 140));
        try (ReplayServer engine = new ReplayServer(layout, TOPIC, engineBuffer)) {
            worker("w1", engine.endpoint());
            send("w1", 10, engineBuffer.get(10L));

            send("w1", 13, engineBuffer.get(13L)); // 11 and 12 were lost

            assertThat(engine.requestedStarts()).containsExactly(11L);
            assertThat(index.contains(MODEL, "w1", 110)).isTrue();
            assertThat(index.contains(MODEL, "w1", 100)).isFalse(); // removed by replayed batch 12
            assertThat(index.contains(MODEL, "w1", 130)).isTrue();
            assertThat(index.contains(MODEL, "w1", 140)).isFalse(); // after the live batch: left to the live stream
            KvWorkerStats s = ingestor.stats("w1");
            assertThat(s.gaps()).isEqualTo(1);
            assertThat(s.replays()).isEqualTo(1);
            assertThat(s.replayedBatches()).isEqualTo(2);
            assertThat(s.unrecoveredBatches()).isZero();
            assertThat(s.replayFailures()).isZero();
        }
    }

    @Test
    void batchesOlderThanTheEngineBufferAreCountedAsUnrecovered() throws Exception {
        Map<Long, byte[]> engineBuffer = Map.of(12L, KvTestPayloads.stored(0, 120), 13L, KvTestPayloads.stored(0, 130));
        try (ReplayServer engine = new ReplayServer(ReplayServer.Layout.WITH_TOPIC, TOPIC, engineBuffer)) {
            worker("w1", engine.endpoint());
            send("w1", 5, KvTestPayloads.stored(0, 50));

            send("w1", 13, engineBuffer.get(13L)); // 6..12 missing, the engine only has 12

            KvWorkerStats s = ingestor.stats("w1");
            assertThat(s.replayedBatches()).isEqualTo(1);
            assertThat(s.unrecoveredBatches()).isEqualTo(6);
            assertThat(index.contains(MODEL, "w1", 120)).isTrue();
        }
    }

    @Test
    void aGapWithoutReplayEndpointIsCountedAndTheLiveBatchStillApplied() throws Exception {
        worker("w1", null);
        send("w1", 0, KvTestPayloads.stored(0, 1));

        send("w1", 4, KvTestPayloads.stored(0, 4));

        KvWorkerStats s = ingestor.stats("w1");
        assertThat(s.gaps()).isEqualTo(1);
        assertThat(s.replays()).isZero();
        assertThat(s.replayFailures()).isEqualTo(1);
        assertThat(s.unrecoveredBatches()).isEqualTo(3);
        assertThat(index.contains(MODEL, "w1", 4)).isTrue();
    }

    @Test
    void aHungReplayEndpointTimesOutAndCountsAFailure() throws Exception {
        try (ReplayServer engine = new ReplayServer(ReplayServer.Layout.SILENT, TOPIC, Map.of());
             KvEventIngestor shortTimeout = new KvEventIngestor(List.of(index), Duration.ofMillis(300), System::nanoTime)) {
            Worker w = Worker.builder("http://w1:8000").id("w1").modelId(MODEL).kvReplayEndpoint(engine.endpoint()).build();
            shortTimeout.register(w);
            shortTimeout.onMessage("w1", KvTestPayloads.message(TOPIC, 0, KvTestPayloads.stored(0, 1)));

            shortTimeout.onMessage("w1", KvTestPayloads.message(TOPIC, 3, KvTestPayloads.stored(0, 3)));

            assertThat(shortTimeout.stats("w1").replayFailures()).isEqualTo(1);
            assertThat(shortTimeout.stats("w1").unrecoveredBatches()).isEqualTo(2);
            assertThat(index.contains(MODEL, "w1", 3)).isTrue();
        }
    }

    @Test
    void aSequenceGoingBackwardsDropsTheWorkersEntriesBeforeApplyingTheNewBatch() throws Exception {
        worker("w1", null);
        worker("w2", null);
        send("w1", 100, KvTestPayloads.stored(0, 1, 2));
        send("w2", 0, KvTestPayloads.stored(0, 1));

        send("w1", 0, KvTestPayloads.stored(0, 9)); // the engine restarted

        assertThat(index.contains(MODEL, "w1", 1)).isFalse();
        assertThat(index.contains(MODEL, "w1", 9)).isTrue();
        assertThat(index.contains(MODEL, "w2", 1)).isTrue();
        assertThat(ingestor.stats("w1").restarts()).isEqualTo(1);
    }

    @Test
    void duplicatesAreIgnored() throws Exception {
        worker("w1", null);
        send("w1", 7, KvTestPayloads.stored(0, 1));

        send("w1", 7, KvTestPayloads.removed(0, 1));

        assertThat(index.contains(MODEL, "w1", 1)).isTrue();
        assertThat(ingestor.stats("w1").duplicates()).isEqualTo(1);
    }

    @Test
    void eachDataParallelRankHasItsOwnSequence() throws Exception {
        worker("w1", null);
        send("w1", 0, KvTestPayloads.stored(0, 1));
        send("w1", 50, KvTestPayloads.stored(1, 2));

        send("w1", 1, KvTestPayloads.stored(0, 3));
        send("w1", 51, KvTestPayloads.stored(1, 4));

        assertThat(ingestor.stats("w1").gaps()).isZero();
        assertThat(ingestor.stats("w1").restarts()).isZero();
        assertThat(index.residentBlocks("w1")).isEqualTo(4);
    }

    @Test
    void flagsAWorkerThatServesTrafficButPublishesNothing() throws Exception {
        AtomicLong clock = new AtomicLong();
        try (KvEventIngestor ing = new KvEventIngestor(List.of(index), Duration.ofSeconds(1), clock::get)) {
            Worker busy = Worker.builder("http://busy:8000").id("busy").modelId(MODEL).build();
            Worker idle = Worker.builder("http://idle:8000").id("idle").modelId(MODEL).build();
            ing.register(busy);
            ing.register(idle);
            busy.incrementProcessed();
            clock.addAndGet(Duration.ofSeconds(31).toNanos());

            assertThat(ing.silentWorkers(Duration.ofSeconds(30))).containsExactly(busy);

            ing.onMessage("busy", KvTestPayloads.message(TOPIC, 0, KvTestPayloads.stored(0, 1)));
            assertThat(ing.silentWorkers(Duration.ofSeconds(30))).isEmpty();
            assertThat(ing.stats("busy").lastEventAgeNanos(clock.get())).isZero();
        }
    }

    @Test
    void messagesOfUnregisteredWorkersAreDropped() throws Exception {
        send("ghost", 0, KvTestPayloads.stored(0, 1));

        assertThat(index.residentBlocks("ghost")).isZero();
        assertThat(ingestor.stats("ghost")).isNull();
    }
}
