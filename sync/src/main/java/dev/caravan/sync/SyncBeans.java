package dev.caravan.sync;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.micrometer.core.instrument.MeterRegistry;

import dev.caravan.gateway.GatewayExtension;
import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.ManualConfig;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.fleet.Fleet;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.kv.KvEventIngestor;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.engine.EngineApiFeature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.flow.TenantDirectory;
import dev.caravan.processors.flow.TenantRateLimiter;
import dev.caravan.processors.responses.ResponseAffinity;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Replica sync's part of the gateway ({@code --sync hazelcast}): the fleet state the policies share
 * ({@link #policyEnvironment}), the embedded Hazelcast member (started in {@link #define}, which returns once the
 * replica joined and pulled a peer's prefix index, so it routes like the warm replicas from its first request), and the
 * beans {@code routes/sync.camel.yaml} references. Without {@code --sync hazelcast} none of this exists and the route
 * file is not loaded. A {@link GatewayExtension}: the gateway finds it when this module is on the class path.
 */
public final class SyncBeans implements GatewayExtension {

    /** The route file that exists only with {@code --sync hazelcast}. */
    public static final String ROUTES_FILE = "sync.camel.yaml";
    /** The name {@code dev.caravan.gateway.Extensions} knows the feature by. */
    public static final String NAME = "Replica sync";

    /** The Hazelcast member the routes' endpoints use ({@code hazelcastInstance=#caravanHazelcast}). */
    public static final String HAZELCAST_INSTANCE = "caravanHazelcast";
    public static final String DRAIN_DECISIONS = "drainSyncDecisions";
    public static final String APPLY_PEER_DECISIONS = "applyPeerDecisions";
    public static final String REPORT_LOADS = "reportSyncLoads";
    public static final String APPLY_PEER_LOADS = "applyPeerLoads";
    public static final String APPLY_PEER_SESSION = "applyPeerSession";
    public static final String TRACK_MEMBERS = "trackSyncMembers";
    public static final String TOUCH_SESSIONS = "touchSyncSessions";
    public static final String RECORD_FAILURE = "recordSyncFailure";
    public static final String REPORT_TENANT_USAGE = "reportTenantUsage";
    public static final String APPLY_PEER_TENANT_USAGE = "applyPeerTenantUsage";
    public static final String DRAIN_RESPONSES = "drainSyncResponses";
    public static final String PUBLISH_RESPONSES = "publishSyncResponses";
    public static final String APPLY_PEER_RESPONSE = "applyPeerResponse";
    public static final String DRAIN_FLUSHES = "drainSyncFlushes";
    public static final String APPLY_PEER_FLUSHES = "applyPeerFlushes";

    private SyncNode node;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String artifact() {
        return "dev.caravan:caravan-sync";
    }

    @Override
    public String routesFile() {
        return ROUTES_FILE;
    }

    @Override
    public boolean enabled(GatewayConfig config) {
        return CoreFlags.SYNC_HAZELCAST.equals(config.get(CoreFlags.SYNC_MODE));
    }

    @Override
    public boolean canonicalWorkerOrder() {
        return true;
    }

    /**
     * Creates this replica's sync node (not yet started) and hands its fleet state to the policies.
     *
     * @throws IllegalArgumentException naming the flags, e.g. {@code --sync hazelcast} without members
     */
    @Override
    public PolicyEnvironment policyEnvironment(GatewayConfig config, WorkerRegistry workers, MeterRegistry meters,
            PolicyEnvironment env) {
        SyncConfig sync = SyncConfig.from(config);
        // options of other policies are ignored by fromOptions, so these read the cache_aware and manual settings
        CacheAwareConfig cacheAware = (CacheAwareConfig) PolicyConfig.fromOptions(
                PolicyName.CACHE_AWARE.wireName(), config.policyOptions());
        ManualConfig manual = (ManualConfig) PolicyConfig.fromOptions(PolicyName.MANUAL.wireName(),
                config.policyOptions());
        int maxIdle = manual.ttlEnabled() ? (int) Math.min(Integer.MAX_VALUE, manual.maxIdle().toSeconds()) : 0;
        node = new SyncNode(sync, new SyncCodec(), cacheAware.sharedPrefixOwner(), maxIdle, workers, meters);
        return env.withFleet(new Fleet(node.prefixes(), node.sessions(), node.buckets(), node.activeBlocks()));
    }

    /**
     * Starts the member (joins, pulls the oldest peer's prefix index and, when the gateway consumes KV events, its KV
     * block index) and adds the sync routes' beans.
     */
    @Override
    public void define(GatewayConfig config, WorkerRegistry workers, MeterRegistry meters, Map<String, Object> beans) {
        if (node == null) {
            throw new IllegalStateException("policyEnvironment must run before define");
        }
        KvEventIngestor kvIngestor = (KvEventIngestor) beans.get(KvFeature.KV_EVENT_INGESTOR);
        if (kvIngestor != null) {
            node.useKv(kvIngestor, (KvBlockIndex) beans.get(KvFeature.KV_BLOCK_INDEX));
        }
        node.start();
        beans.put(HAZELCAST_INSTANCE, node.instance());
        beans.put(DRAIN_DECISIONS, new DrainSyncDecisionsProcessor(node));
        beans.put(APPLY_PEER_DECISIONS, new ApplyPeerDecisionsProcessor(node));
        beans.put(REPORT_LOADS, new ReportSyncLoadsProcessor(node));
        beans.put(APPLY_PEER_LOADS, new ApplyPeerLoadsProcessor(node));
        beans.put(APPLY_PEER_SESSION, new ApplyPeerSessionProcessor(node,
                (PolicyRegistry) beans.get(Wiring.POLICY_REGISTRY)));
        beans.put(TRACK_MEMBERS, new TrackSyncMembersProcessor(node));
        beans.put(TOUCH_SESSIONS, new TouchSyncSessionsProcessor(node));
        beans.put(RECORD_FAILURE, new RecordSyncFailureProcessor(node.metrics()));
        PeerTenantUsage tenantUsage = new PeerTenantUsage((TenantRateLimiter) beans.get(FlowFeature.TENANT_RATE_LIMITER),
                (TenantDirectory) beans.get(FlowFeature.TENANT_DIRECTORY));
        beans.put(REPORT_TENANT_USAGE, new ReportTenantUsageProcessor(node, tenantUsage));
        beans.put(APPLY_PEER_TENANT_USAGE, new ApplyPeerTenantUsageProcessor(node, tenantUsage));
        ResponseAffinity responses = (ResponseAffinity) beans.get(EngineApiFeature.RESPONSE_AFFINITY);
        ResponseOutbox outbox = new ResponseOutbox(node.metrics());
        responses.onStored(outbox::add);
        beans.put(DRAIN_RESPONSES, new DrainSyncResponsesProcessor(outbox, node.metrics()));
        beans.put(PUBLISH_RESPONSES, new PublishSyncResponsesProcessor(
                () -> node.instance().getMap(SyncMember.RESPONSES)));
        beans.put(APPLY_PEER_RESPONSE, new ApplyPeerResponseProcessor(responses, node.metrics()));
        List<PolicyRegistry> policies = new ArrayList<>();
        for (String name : List.of(Wiring.POLICY_REGISTRY, Wiring.PREFILL_POLICY_REGISTRY,
                Wiring.DECODE_POLICY_REGISTRY)) {
            if (beans.get(name) instanceof PolicyRegistry registry) {
                policies.add(registry);
            }
        }
        Queue<String> flushed = new ConcurrentLinkedQueue<>();
        policies.forEach(p -> p.onCacheFlushed(w -> flushed.add(w.url())));
        beans.put(DRAIN_FLUSHES, new DrainSyncFlushesProcessor(flushed, node.metrics()));
        beans.put(APPLY_PEER_FLUSHES, new ApplyPeerFlushesProcessor(workers, policies, node.metrics()));
    }

    @Override
    public void close() {
        if (node != null) {
            node.close();
        }
    }

    /** This replica's node, for tests in this package. */
    SyncNode node() {
        return node;
    }
}
