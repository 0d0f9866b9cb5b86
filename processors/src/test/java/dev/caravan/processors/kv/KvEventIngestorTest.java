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
import dev.caravan.policies.kv.KvTier;
import dev.caravan.policies.kv.PrefixMatches;
import dev.caravan.policies.kv.ParityConfig;
import dev.caravan.policies.kv.ParityTracker;

class KvEventIngestorTest {

    private static final String MODEL = "m";
    private static final String TOPIC = "kv@w1@m";
    private final AtomicLong now = new AtomicLong();
    private final KvBlockIndex index = new KvBlockIndex();
    private final ParityTracker parity = new ParityTracker(ParityConfig.defaults(), now::get);
    private final KvEventIngestor ingestor = new KvEventIngestor(index, List.of(parity), Duration.ofSeconds(10),
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

    private boolean holds(String workerId, long... chain) {
        return index.holds(workerId, KvTestPayloads.key(chain), KvTier.GPU);
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
        PrefixMatches m = index.longestPrefixes(KvTestPayloads.keys(1, 2, 3), 1, 1);
        assertThat(m.matched("w1")).isEqualTo(1);
        assertThat(m.matched("w2")).isEqualTo(1);
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
        parity.expect("w1", KvTestPayloads.keys(7, 8));

        send("w1", 0, KvTestPayloads.stored(0, 7, 8, 9));

        assertThat(parity.snapshot().matched()).isEqualTo(2);
    }

    @Test
    void aLowerTierStoreOfABlockNeverSeenIsCountedAsAnOrphan() throws Exception {
        worker("w1", null);

        send("w1", 0, KvTestPayloads.storedOnCpu(5));

        assertThat(index.residentBlocks("w1")).isZero();
        assertThat(ingestor.stats("w1").nonGpuEvents()).isEqualTo(1);
        assertThat(ingestor.stats("w1").orphanBlocks()).isEqualTo(1);
    }

    @Test
    void aLateSubscriberReplaysWhatTheEngineStillBuffersBeforeItsFirstMessage() throws Exception {
        Map<Long, byte[]> engineBuffer = Map.of(
                0L, KvTestPayloads.stored(0, 1, 2),
                1L, KvTestPayloads.removed(0, 2),
                2L, KvTestPayloads.stored(0, 3));
        try (ReplayServer engine = new ReplayServer(ReplayServer.Layout.WITH_TOPIC, TOPIC, engineBuffer)) {
            worker("w1", engine.endpoint());

            send("w1", 2, engineBuffer.get(2L)); // the gateway subscribed after batches 0 and 1 were published

            assertThat(engine.requestedStarts()).containsExactly(0L);
            assertThat(holds("w1", 1)).isTrue();
            assertThat(holds("w1", 1, 2)).isFalse();
            assertThat(holds("w1", 3)).isTrue();
            assertThat(ingestor.stats("w1").replayedBatches()).isEqualTo(2);
            assertThat(ingestor.stats("w1").gaps()).isZero();
        }
    }

    @Test
    void aSubscriberThatSeesTheFirstBatchAsksForNoReplay() throws Exception {
        try (ReplayServer engine = new ReplayServer(ReplayServer.Layout.WITH_TOPIC, TOPIC, Map.of())) {
            worker("w1", engine.endpoint());

            send("w1", 0, KvTestPayloads.stored(0, 1));

            assertThat(engine.requestedStarts()).isEmpty();
            assertThat(ingestor.stats("w1").replays()).isZero();
        }
    }

    @Test
    void theRankTheRouteSubscribedToCountsWhenTheBatchNamesNone() throws Exception {
        worker("w1", null);
        byte[] rankless = KvTestPayloads.storedWithoutRank(1);

        ingestor.onMessage("w1", 1, KvTestPayloads.message(TOPIC, 0, rankless));
        send("w1", 0, KvTestPayloads.stored(0, 2));

        assertThat(index.longestPrefixes(KvTestPayloads.keys(1), 1, 1).match("w1").rank()).isEqualTo(1);
        ingestor.onMessage("w1", 1, KvTestPayloads.message(TOPIC, 1, KvTestPayloads.cleared(1)));
        assertThat(holds("w1", 1)).isFalse();
        assertThat(holds("w1", 2)).isTrue();
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

            assertThat(engine.requestedStarts()).containsExactly(0L, 11L); // what it held at 10 (nothing), then the gap
            assertThat(holds("w1", 110)).isTrue();
            assertThat(holds("w1", 100)).isFalse(); // removed by replayed batch 12
            assertThat(holds("w1", 130)).isTrue();
            assertThat(holds("w1", 140)).isFalse(); // after the live batch: left to the live stream
            KvWorkerStats s = ingestor.stats("w1");
            assertThat(s.gaps()).isEqualTo(1);
            assertThat(s.replays()).isEqualTo(2);
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
            assertThat(holds("w1", 120)).isTrue();
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
        assertThat(holds("w1", 4)).isTrue();
    }

    @Test
    void aHungReplayEndpointTimesOutAndCountsAFailure() throws Exception {
        try (ReplayServer engine = new ReplayServer(ReplayServer.Layout.SILENT, TOPIC, Map.of());
             KvEventIngestor shortTimeout = new KvEventIngestor(index, List.of(), Duration.ofMillis(300),
                     System::nanoTime)) {
            Worker w = Worker.builder("http://w1:8000").id("w1").modelId(MODEL).kvReplayEndpoint(engine.endpoint()).build();
            shortTimeout.register(w);
            shortTimeout.onMessage("w1", KvTestPayloads.message(TOPIC, 0, KvTestPayloads.stored(0, 1)));

            shortTimeout.onMessage("w1", KvTestPayloads.message(TOPIC, 3, KvTestPayloads.stored(0, 3)));

            assertThat(shortTimeout.stats("w1").replayFailures()).isEqualTo(1);
            assertThat(shortTimeout.stats("w1").unrecoveredBatches()).isEqualTo(2);
            assertThat(holds("w1", 3)).isTrue();
        }
    }

    @Test
    void aSequenceGoingBackwardsDropsThatRanksEntriesBeforeApplyingTheNewBatch() throws Exception {
        worker("w1", null);
        worker("w2", null);
        send("w1", 100, KvTestPayloads.stored(0, 1, 2));
        send("w1", 100, KvTestPayloads.stored(1, 5));
        send("w2", 0, KvTestPayloads.stored(0, 1));

        send("w1", 0, KvTestPayloads.stored(0, 9)); // rank 0 of the engine restarted

        assertThat(holds("w1", 1)).isFalse();
        assertThat(holds("w1", 9)).isTrue();
        assertThat(holds("w1", 5)).isTrue();
        assertThat(holds("w2", 1)).isTrue();
        assertThat(ingestor.stats("w1").restarts()).isEqualTo(1);
    }

    @Test
    void aStoreOfAnEngineIdTheRankHoldsKeepsThatIdsKeyWhateverItsTokens() throws Exception {
        worker("w1", null);
        send("w1", 0, KvTestPayloads.stored(0, 1_837, 2_837));

        send("w1", 1, KvTestPayloads.stored(0, 2_837, 3_837)); // id 2837 named the block after 1837 already

        assertThat(ingestor.stats("w1").blockStoredEvents()).isEqualTo(2);
        assertThat(holds("w1", 2_837)).isFalse();
        assertThat(holds("w1", 2_837, 3_837)).isFalse();
        assertThat(holds("w1", 1_837, 2_837)).isTrue();
        assertThat(holds("w1", 1_837, 2_837, 3_837)).isTrue();
        assertThat(index.residentBlocks("w1")).isEqualTo(3);
    }

    @Test
    void duplicatesAreIgnored() throws Exception {
        worker("w1", null);
        send("w1", 7, KvTestPayloads.stored(0, 1));

        send("w1", 7, KvTestPayloads.removed(0, 1));

        assertThat(holds("w1", 1)).isTrue();
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
        try (KvEventIngestor ing = new KvEventIngestor(index, List.of(), Duration.ofSeconds(1), clock::get)) {
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
