package dev.caravan.sync;

import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.kv.KvEventIngestor;

/**
 * kv_aware's part of a join: the block index is the engines' ground truth and every replica subscribes to every
 * engine, so only a replica that joins needs a peer — to know the blocks cached before it subscribed. It pulls the
 * oldest peer's index and publisher positions ({@link SnapshotTask#kvIndex()}) before it routes; its first live event of each
 * engine then replays only the batches published since that snapshot (docs/design/replica-sync.md).
 */
final class KvIndexSync {

    private static final Logger LOG = LoggerFactory.getLogger(KvIndexSync.class);

    private final KvEventIngestor ingestor;
    private final KvBlockIndex index;
    private final SyncCodec codec;
    private final SyncMetrics metrics;

    KvIndexSync(KvEventIngestor ingestor, KvBlockIndex index, SyncCodec codec, SyncMetrics metrics) {
        this.ingestor = ingestor;
        this.index = index;
        this.codec = codec;
        this.metrics = metrics;
    }

    /** This member's index as a {@code KV_SNAPSHOT} message; {@code member} is the instance the task runs on. */
    byte[] export(HazelcastInstance member) {
        return codec.kvSnapshot(member.getCluster().getLocalMember().getUuid(), member.getCluster().getClusterTime(),
                new SyncCodec.KvSnapshot(List.copyOf(index.loraNames()), ingestor.exportSnapshot()));
    }

    /** Pulls {@code peer}'s index and takes it, waiting at most {@code timeoutMillis}; a failure is logged and counted. */
    void pull(HazelcastInstance instance, Member peer, long timeoutMillis) {
        try {
            Future<byte[]> reply = instance.getExecutorService(SyncMember.SNAPSHOTS)
                    .submitToMember(SnapshotTask.kvIndex(), peer);
            SyncCodec.Message message = codec.read(reply.get(timeoutMillis, TimeUnit.MILLISECONDS));
            if (message.header().kind() != SyncCodec.Kind.KV_SNAPSHOT) { // an older peer answered its prefix index
                throw new SyncCodec.SchemaMismatch("a " + message.header().kind() + " message instead of KV_SNAPSHOT");
            }
            SyncCodec.KvSnapshot snapshot = message.kvSnapshot();
            index.addLoraNames(snapshot.loraNames());
            int entries = 0;
            for (KvEventIngestor.WorkerSnapshot w : snapshot.workers()) {
                for (KvBlockIndex.RankState r : w.ranks()) {
                    entries += r.engineIds().length;
                }
            }
            ingestor.restoreSnapshot(snapshot.workers());
            metrics.kvSnapshot("merged", entries);
            LOG.info("Sync: took {} KV index entries of {} engine(s) from {}", entries, snapshot.workers().size(),
                    peer.getAddress());
        } catch (SyncCodec.SchemaMismatch e) {
            metrics.kvSnapshot("skipped", 0);
            LOG.warn("Sync: the KV index snapshot of {} has another schema ({}); kv_aware learns from the engines'"
                    + " events and replay buffers only", peer.getAddress(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            metrics.kvSnapshot("failed", 0);
        } catch (Exception e) {
            metrics.kvSnapshot("failed", 0);
            LOG.warn("Sync: no KV index snapshot from {} ({}); kv_aware learns from the engines' events and replay"
                    + " buffers only", peer.getAddress(), e.toString());
        }
    }
}
