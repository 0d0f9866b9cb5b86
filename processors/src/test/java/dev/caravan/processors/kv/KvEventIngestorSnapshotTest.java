package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvTier;

/** A replica that joins takes a peer's KV index and publisher positions, then replays only what came after. */
class KvEventIngestorSnapshotTest {

    private static final String TOPIC = "kv@w1@m";
    private final KvBlockIndex peerIndex = new KvBlockIndex();
    private final KvBlockIndex joinerIndex = new KvBlockIndex();
    private final KvEventIngestor peer = new KvEventIngestor(peerIndex, List.of(), Duration.ofSeconds(10),
            System::nanoTime);
    private final KvEventIngestor joiner = new KvEventIngestor(joinerIndex, List.of(), Duration.ofSeconds(10),
            System::nanoTime);

    @AfterEach
    void tearDown() {
        peer.close();
        joiner.close();
    }

    /** The same engine as each replica registers it: same URL, its own worker id. */
    private static Worker engine(String id, String replayEndpoint) {
        return Worker.builder("http://engine-a:8000").id(id).modelId("m").kvEventsEndpoint("tcp://engine-a:5557")
                .kvReplayEndpoint(replayEndpoint).build();
    }

    private static boolean holds(KvBlockIndex index, String workerId, long... chain) {
        return index.holds(workerId, KvTestPayloads.key(chain), KvTier.GPU);
    }

    @Test
    void aJoinerRoutesOnThePeersIndexAndReplaysOnlyTheBatchesSinceItsSnapshot() throws Exception {
        Map<Long, byte[]> engineBuffer = Map.of(
                0L, KvTestPayloads.stored(0, 1),
                1L, KvTestPayloads.stored(0, 2),
                2L, KvTestPayloads.removed(0, 1),
                3L, KvTestPayloads.stored(0, 3),
                4L, KvTestPayloads.stored(0, 4));
        try (ReplayServer server = new ReplayServer(ReplayServer.Layout.WITH_TOPIC, TOPIC, engineBuffer)) {
            peer.register(engine("peer-id", server.endpoint()));
            peer.onMessage("peer-id", KvTestPayloads.message(TOPIC, 0, engineBuffer.get(0L)));
            peer.onMessage("peer-id", KvTestPayloads.message(TOPIC, 1, engineBuffer.get(1L)));

            joiner.register(engine("joiner-id", server.endpoint()));
            joiner.restoreSnapshot(peer.exportSnapshot());
            assertThat(holds(joinerIndex, "joiner-id", 1)).isTrue();
            assertThat(holds(joinerIndex, "joiner-id", 2)).isTrue();

            // the joiner's subscription starts at batch 3: batch 2 came between the snapshot and the subscription
            joiner.onMessage("joiner-id", KvTestPayloads.message(TOPIC, 3, engineBuffer.get(3L)));

            assertThat(server.requestedStarts()).containsExactly(2L);  // from the peer's position, not from 0
            assertThat(holds(joinerIndex, "joiner-id", 1)).isFalse();   // removed by the replayed batch 2
            assertThat(holds(joinerIndex, "joiner-id", 2)).isTrue();
            assertThat(holds(joinerIndex, "joiner-id", 3)).isTrue();
            KvWorkerStats s = joiner.stats("joiner-id");
            assertThat(s.replayedBatches()).isEqualTo(1);
            assertThat(s.unrecoveredBatches()).isZero();
        }
    }

    @Test
    void aWorkerRegisteredAfterTheSnapshotTakesItsPartWhenItArrives() throws Exception {
        peer.register(engine("peer-id", null));
        peer.onMessage("peer-id", KvTestPayloads.message(TOPIC, 7, KvTestPayloads.stored(0, 5, 6)));

        assertThat(joiner.restoreSnapshot(peer.exportSnapshot())).isZero();
        joiner.register(engine("joiner-id", null));

        assertThat(holds(joinerIndex, "joiner-id", 5, 6)).isTrue();
        joiner.onMessage("joiner-id", KvTestPayloads.message(TOPIC, 8, KvTestPayloads.stored(0, 9)));
        assertThat(joiner.stats("joiner-id").gaps()).isZero();          // 8 follows the peer's 7
    }

    @Test
    void anEngineThatRestartedSinceTheSnapshotIsClearedByItsFirstLiveMessage() throws Exception {
        peer.register(engine("peer-id", null));
        peer.onMessage("peer-id", KvTestPayloads.message(TOPIC, 40, KvTestPayloads.stored(0, 5)));
        joiner.register(engine("joiner-id", null));
        joiner.restoreSnapshot(peer.exportSnapshot());

        joiner.onMessage("joiner-id", KvTestPayloads.message(TOPIC, 0, KvTestPayloads.stored(0, 8)));

        assertThat(holds(joinerIndex, "joiner-id", 5)).isFalse();
        assertThat(holds(joinerIndex, "joiner-id", 8)).isTrue();
        assertThat(joiner.stats("joiner-id").restarts()).isEqualTo(1);
    }
}
