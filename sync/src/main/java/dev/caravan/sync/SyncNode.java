package dev.caravan.sync;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.core.LifecycleEvent;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.fleet.FleetPrefixIndex;
import dev.caravan.policies.fleet.FleetPrefixes;
import dev.caravan.policies.fleet.PrefixDecision;
import dev.caravan.policies.fleet.PrefixHasher;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.PeerActiveBlocks;
import dev.caravan.policies.tree.OwnerRule;
import dev.caravan.processors.kv.KvEventIngestor;

/**
 * One replica's end of the sync: its Hazelcast member, the fleet prefix index and its outbox, the shared sessions, the
 * peers' loads, and what the routes' steps do with them (drain, publish, apply, snapshot). Everything the request path
 * touches is local and non-blocking; everything that talks to peers runs on the sync routes' threads.
 *
 * <p>Stamps: the cluster clock in milliseconds shifted left 12 bits, plus 12 bits of this member's id, so decisions of
 * two replicas in the same millisecond still order the same everywhere.
 */
final class SyncNode implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SyncNode.class);

    /** Decisions waiting for the next publish tick; beyond it they are dropped and counted. */
    static final int OUTBOX_CAPACITY = 65_536;
    /** Decisions per published message. */
    static final int MAX_BATCH = 512;
    /** Longest wait for the snapshot a starting replica pulls before it routes. */
    static final long INITIAL_SNAPSHOT_TIMEOUT_MS = 10_000;

    private final SyncConfig config;
    private final SyncCodec codec;
    private final SyncMetrics metrics;
    private final BlockingQueue<PrefixDecision> outbox = new ArrayBlockingQueue<>(OUTBOX_CAPACITY);
    private final FleetPrefixes prefixes;
    private final HazelcastSessionStore sessions;
    private final HazelcastBucketRanges buckets;
    private final PeerActiveBlocks activeBlocks = new PeerActiveBlocks();
    private final PeerLoads loads;
    private final ExecutorService executor;
    private final Set<UUID> knownMembers = ConcurrentHashMap.newKeySet();
    private final int maxIdleSeconds;
    private volatile HazelcastInstance instance;
    private volatile KvIndexSync kv;
    private volatile UUID origin = new UUID(0, 0);
    private volatile long originBits;
    private SyncCodec.LoadReport lastLoads = new SyncCodec.LoadReport(Map.of(), Map.of());
    private long lastLoadsNanos;

    SyncNode(SyncConfig config, SyncCodec codec, OwnerRule ownerRule, int maxIdleSeconds, WorkerRegistry workers,
            MeterRegistry meters) {
        this.config = config;
        this.codec = codec;
        this.maxIdleSeconds = maxIdleSeconds;
        FleetPrefixIndex index = new FleetPrefixIndex(ownerRule);
        PrefixHasher hasher = new PrefixHasher(config.hashKey());
        this.metrics = new SyncMetrics(meters, () -> instance == null ? 0 : instance.getCluster().getMembers().size(),
                index::size);
        this.prefixes = new FleetPrefixes(hasher, index, this::stamp, this::enqueue);
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "caravan-sync");
            t.setDaemon(true);
            return t;
        });
        this.sessions = new HazelcastSessionStore(() -> instance.getMap(SyncMember.SESSIONS), hasher, executor,
                metrics, maxIdleSeconds > 0);
        this.loads = new PeerLoads(workers, activeBlocks, System::nanoTime);
        this.buckets = new HazelcastBucketRanges(() -> instance, codec, metrics);
    }

    /** Starts the member, joins the fleet and pulls the oldest peer's prefix index before returning. */
    void start() {
        String name = "caravan-sync-" + UUID.randomUUID();
        instance = SyncMember.start(SyncMember.config(config, name, maxIdleSeconds, Map.of(SyncMember.NODE, this)));
        Member local = instance.getCluster().getLocalMember();
        origin = local.getUuid();
        originBits = origin.getLeastSignificantBits() & 0xFFF;
        instance.getLifecycleService().addLifecycleListener(e -> {
            if (e.getState() == LifecycleEvent.LifecycleState.MERGED) {
                LOG.info("Sync: rejoined the fleet after a partition; pulling the peers' prefix indexes");
                knownMembers.clear();
                membershipChanged();
            }
        });
        LOG.info("Sync: member {} at {} joined cluster '{}' of {} member(s)", origin, local.getAddress(),
                config.clusterName(), instance.getCluster().getMembers().size());
        if (config.keyedByClusterName() && config.allowNoSecret()) {
            LOG.warn("Sync: no --sync-secret (--sync-allow-no-secret); prefix hashes are keyed by the cluster name, so "
                    + "anyone who can read the sync port can confirm a guessed prompt. Set --sync-secret "
                    + "(CARAVAN_SYNC_SECRET) on every replica.");
        }
        // partitions assigned and the sessions map created now, not by a request's first claim (which waits at most
        // HazelcastSessionStore.CLAIM_TIMEOUT_MS before this replica decides alone)
        instance.getMap(SyncMember.SESSIONS).size();
        instance.getMap(SyncMember.QUOTAS).size();
        List<Member> peers = peers();
        peers.forEach(m -> knownMembers.add(m.getUuid()));
        if (!peers.isEmpty()) {
            Member oldest = peers.get(0);
            try {
                pull(oldest).get(INITIAL_SNAPSHOT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.warn("Sync: no prefix snapshot from {} ({}); learning from new decisions only", oldest.getAddress(),
                        e.toString());
            }
            KvIndexSync kvSync = kv;
            if (kvSync != null) {
                kvSync.pull(instance, oldest, INITIAL_SNAPSHOT_TIMEOUT_MS);
            }
        }
    }

    HazelcastInstance instance() {
        return instance;
    }

    /** Members of the fleet now, this one included; 1 once this member has stopped (it is then alone). */
    int memberCount() {
        try {
            return instance.getCluster().getMembers().size();
        } catch (HazelcastInstanceNotActiveException e) {
            return 1;
        }
    }

    UUID origin() {
        return origin;
    }

    long clusterMillis() {
        return instance.getCluster().getClusterTime();
    }

    long stamp() {
        return (clusterMillis() << 12) | originBits;
    }

    FleetPrefixes prefixes() {
        return prefixes;
    }

    /** kv_aware's active blocks: this replica's for the load reports, the peers' for its policies. */
    PeerActiveBlocks activeBlocks() {
        return activeBlocks;
    }

    HazelcastBucketRanges buckets() {
        return buckets;
    }

    HazelcastSessionStore sessions() {
        return sessions;
    }

    PeerLoads loads() {
        return loads;
    }

    SyncMetrics metrics() {
        return metrics;
    }

    /** The tenants' shared request budgets: a {@link TakeQuotaLease} on the tenant's entry, at the cluster's time. */
    QuotaLeases.SharedBuckets quotaBuckets() {
        return (tenant, limit, charge, want) -> instance.<String, long[]>getMap(SyncMember.QUOTAS)
                .submitToKey(tenant, new TakeQuotaLease(limit, charge, want, clusterMillis()));
    }

    SyncCodec codec() {
        return codec;
    }

    private void enqueue(PrefixDecision d) {
        if (!outbox.offer(d)) {
            metrics.dropped("decisions");
        }
    }

    /** The next batch of this replica's decisions as one message, or null when there are none. */
    byte[] drainDecisions() {
        List<PrefixDecision> batch = new ArrayList<>(Math.min(MAX_BATCH, outbox.size()));
        outbox.drainTo(batch, MAX_BATCH);
        if (batch.isEmpty()) {
            return null;
        }
        byte[] message = codec.decisions(origin, clusterMillis(), batch);
        metrics.published("decisions", 1);
        metrics.decisionsPublished(batch.size(), message.length);
        return message;
    }

    /** A peer's decision batch (own messages, which the topic also delivers here, are ignored). */
    void applyDecisions(byte[] message) {
        SyncCodec.Message m = read("decisions", message);
        if (m == null || m.header().origin().equals(origin)) {
            return;
        }
        long now = clusterMillis();
        for (PrefixDecision d : m.decisions()) {
            prefixes.learn(d);
            metrics.lag("decisions", now - (d.stamp() >>> 12)); // from the decision itself, outbox wait included
        }
        metrics.received("decisions");
    }

    /**
     * This replica's load report when it changed, or at least every second; null when there is nothing to send. Also
     * drops peers' reports that went stale.
     */
    synchronized byte[] loadReport() {
        loads.expire();
        SyncCodec.LoadReport now = new SyncCodec.LoadReport(loads.local(), loads.localBlocks());
        long t = System.nanoTime();
        if (now.equals(lastLoads) && t - lastLoadsNanos < 1_000_000_000L) {
            return null;
        }
        lastLoads = now;
        lastLoadsNanos = t;
        metrics.published("loads", 1);
        return codec.loads(origin, clusterMillis(), now);
    }

    /** A peer's load report, or its removal ({@code message} null) when the map entry went away. */
    void applyLoads(String key, byte[] message) {
        if (message == null) {
            loads.remove(UUID.fromString(key));
            return;
        }
        SyncCodec.Message m = read("loads", message);
        if (m == null || m.header().origin().equals(origin)) {
            return;
        }
        loads.apply(m.header().origin(), m.loads());
        metrics.received("loads");
        metrics.lag("loads", clusterMillis() - m.header().sentAtMillis());
    }

    /** A session entry's new value, decoded; null when it cannot be read here (counted). */
    SyncCodec.Session readSession(byte[] value) {
        SyncCodec.Message m = read("sessions", value);
        if (m != null) {
            metrics.received("sessions");
        }
        return m == null ? null : m.session();
    }

    private SyncCodec.Message read(String channel, byte[] message) {
        try {
            return codec.read(message);
        } catch (SyncCodec.SchemaMismatch e) {
            metrics.skipped(channel, "schema");
            LOG.debug("Sync: skipped a {} message: {}", channel, e.getMessage());
        } catch (RuntimeException e) {
            metrics.skipped(channel, "decode");
            LOG.warn("Sync: undecodable {} message skipped: {}", channel, e.toString());
        }
        return null;
    }

    /**
     * This member's fleet prefix index as a snapshot message. {@code member} is the instance the task runs on: a peer
     * may ask while this member is still joining, before {@link #start} returned.
     */
    byte[] exportSnapshot(HazelcastInstance member) {
        return codec.snapshot(member.getCluster().getLocalMember().getUuid(), member.getCluster().getClusterTime(),
                prefixes.index().export());
    }

    /** Hands over kv_aware's block index and its ingestor: a joining replica then pulls a peer's (before {@link #start}). */
    void useKv(KvEventIngestor ingestor, KvBlockIndex index) {
        kv = new KvIndexSync(ingestor, index, codec, metrics);
    }

    /** This member's KV block index as a snapshot message (empty when this replica consumes no KV events). */
    byte[] exportKvSnapshot(HazelcastInstance member) {
        KvIndexSync kvSync = kv;
        return kvSync != null ? kvSync.export(member)
                : codec.kvSnapshot(member.getCluster().getLocalMember().getUuid(),
                        member.getCluster().getClusterTime(), new SyncCodec.KvSnapshot(List.of(), List.of()));
    }

    /**
     * Members changed: forget the loads of members that left, and pull the index of every member not seen before (a
     * joiner, or the other side of a healed partition). Never blocks: pulls complete on Hazelcast's threads.
     */
    void membershipChanged() {
        HazelcastInstance hz = instance;
        if (hz == null || !hz.getLifecycleService().isRunning()) {
            return;
        }
        Set<UUID> current = new HashSet<>();
        hz.getCluster().getMembers().forEach(m -> current.add(m.getUuid()));
        loads.retain(current);
        knownMembers.retainAll(current);
        for (Member m : peers()) {
            if (knownMembers.add(m.getUuid())) {
                pull(m);
            }
        }
    }

    private List<Member> peers() {
        List<Member> out = new ArrayList<>();
        for (Member m : instance.getCluster().getMembers()) { // oldest first
            if (!m.localMember()) {
                out.add(m);
            }
        }
        return out;
    }

    /** Pulls one member's index and merges it (on the sync thread). */
    private CompletableFuture<Integer> pull(Member member) {
        CompletableFuture<Integer> merged = new CompletableFuture<>();
        try {
            instance.getExecutorService(SyncMember.SNAPSHOTS).submitToMember(new SnapshotTask(), member,
                    new ExecutionCallback<byte[]>() {
                        @Override
                        public void onResponse(byte[] bytes) {
                            executor.execute(() -> merged.complete(merge(member, bytes)));
                        }

                        @Override
                        public void onFailure(Throwable t) {
                            metrics.snapshot("failed");
                            LOG.warn("Sync: snapshot from {} failed: {}", member.getAddress(), t.toString());
                            merged.completeExceptionally(t);
                        }
                    });
        } catch (RuntimeException e) {
            metrics.snapshot("failed");
            merged.completeExceptionally(e);
        }
        return merged;
    }

    private int merge(Member member, byte[] bytes) {
        SyncCodec.Message m = read("snapshots", bytes);
        if (m == null) {
            metrics.snapshot("skipped");
            return 0;
        }
        int n = 0;
        for (FleetPrefixIndex.Entry e : m.snapshot()) {
            prefixes.index().merge(e.hash(), e.owner(), e.stamp());
            n++;
        }
        metrics.snapshot("merged");
        LOG.info("Sync: merged {} prefix entries from {}", n, member.getAddress());
        return n;
    }

    /** Restarts the idle time of the session keys routed since the last call (the sessions' shared TTL). */
    void touchSessions() {
        sessions.flushTouches();
    }

    @Override
    public void close() {
        HazelcastInstance hz = instance;
        if (hz != null) {
            hz.shutdown();
        }
        executor.shutdownNow();
    }
}
