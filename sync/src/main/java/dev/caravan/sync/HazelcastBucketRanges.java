package dev.caravan.sync;

import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.fleet.BucketRanges;

/**
 * bucket's fleet-wide length ranges in the replicated map {@value SyncMember#BUCKETS} (model → a {@link SyncCodec}
 * {@code BUCKET_RANGES} message): the oldest member cuts and publishes, every other member adopts on its next
 * maintenance run. Reads are local (a replicated map); a failed publish or an unreadable entry is logged and counted,
 * and the replica keeps the ranges it has.
 */
final class HazelcastBucketRanges implements BucketRanges {

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastBucketRanges.class);
    private static final String CHANNEL = "buckets";

    private final Supplier<HazelcastInstance> instance;
    private final SyncCodec codec;
    private final SyncMetrics metrics;

    HazelcastBucketRanges(Supplier<HazelcastInstance> instance, SyncCodec codec, SyncMetrics metrics) {
        this.instance = instance;
        this.codec = codec;
        this.metrics = metrics;
    }

    @Override
    public boolean cutsForFleet() {
        HazelcastInstance hz = instance.get();
        if (hz == null || !hz.getLifecycleService().isRunning()) {
            return true; // not (or no longer) in a fleet: this replica cuts for itself
        }
        Iterator<Member> members = hz.getCluster().getMembers().iterator(); // oldest first
        return !members.hasNext() || members.next().localMember();
    }

    @Override
    public void publish(String model, List<Range> ranges) {
        try {
            HazelcastInstance hz = instance.get();
            hz.getReplicatedMap(SyncMember.BUCKETS).put(model, codec.bucketRanges(
                    hz.getCluster().getLocalMember().getUuid(), hz.getCluster().getClusterTime(), ranges));
            metrics.published(CHANNEL, 1);
        } catch (RuntimeException e) {
            metrics.failed(CHANNEL);
            LOG.warn("Sync: bucket ranges of '{}' not published ({}); the other replicas keep theirs", model,
                    e.toString());
        }
    }

    @Override
    public List<Range> latest(String model) {
        byte[] bytes;
        try {
            HazelcastInstance hz = instance.get();
            bytes = hz == null ? null : (byte[]) hz.getReplicatedMap(SyncMember.BUCKETS).get(model);
        } catch (RuntimeException e) {
            metrics.failed(CHANNEL);
            LOG.warn("Sync: bucket ranges of '{}' not readable ({}); keeping this replica's", model, e.toString());
            return null;
        }
        if (bytes == null) {
            return null;
        }
        try {
            List<Range> ranges = codec.read(bytes).bucketRanges();
            metrics.received(CHANNEL);
            return ranges;
        } catch (SyncCodec.SchemaMismatch e) {
            metrics.skipped(CHANNEL, "schema");
        } catch (IllegalArgumentException | ClassCastException e) {
            metrics.skipped(CHANNEL, "decode");
            LOG.warn("Sync: undecodable bucket ranges of '{}' skipped: {}", model, e.toString());
        }
        return null;
    }
}
