package dev.caravan.sync;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.vertx.core.Vertx;

import dev.caravan.processors.kv.KvFeature;
import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.ManualConfig;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.fleet.Fleet;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.engine.EngineApiFeature;
import dev.caravan.processors.feature.OptionalFeature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.flow.TenantDirectory;
import dev.caravan.processors.flow.TenantRateLimiter;
import dev.caravan.processors.kv.KvEventIngestor;
import dev.caravan.processors.responses.ResponseAffinity;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Replica sync's part of the gateway ({@code --sync hazelcast}): its settings (the rows below; the switch,
 * {@code --sync}, is the core's {@link CoreFlags#SYNC_MODE}), the fleet state the policies share
 * ({@link #policyEnvironment}), the embedded Hazelcast member (started in {@link #wire}, which returns once the
 * replica joined and pulled a peer's prefix index, so it routes like the warm replicas from its first request), and the
 * beans {@code routes/sync.camel.yaml} references. Without {@code --sync hazelcast} none of this exists and the route
 * file is not loaded. An {@link OptionalFeature}: the gateway finds it when this module is on the class path
 * ({@code META-INF/services}).
 */
public final class SyncFeature implements OptionalFeature {

    private static final FlagRows ROWS = new FlagRows();

    /** Hazelcast's own default member port. */
    public static final int DEFAULT_PORT = 5701;
    public static final String DEFAULT_CLUSTER_NAME = "caravan";
    /** The headless service of config/k8s whose endpoints are the gateway pods. */
    public static final String DEFAULT_KUBERNETES_SERVICE = "caravan-sync";
    public static final CaravanFlag SYNC_MEMBERS = ROWS.row("--sync-members", "caravan.sync.members",
            LIST, Sections.SYNC)
            .describe("The replicas' sync addresses (host:port ...), a static member list; required with --sync "
                    + "hazelcast unless --sync-kubernetes. Multicast is never used.");
    public static final CaravanFlag SYNC_PORT = ROWS.row("--sync-port", "caravan.sync.port", INT, Sections.SYNC)
            .defaultValue(DEFAULT_PORT).range(0, 65535)
            .describe("Port of this replica's sync member; 0 picks a free one (tests).");
    public static final CaravanFlag SYNC_HOST = ROWS.row("--sync-host", "caravan.sync.host", STRING, Sections.SYNC)
            .describe("Address the sync member binds and announces to its peers (unset: every interface, announcing "
                    + "one Hazelcast picks). The sync port has no TLS and no authentication: keep it on a network only "
                    + "replicas reach; any address but a loopback one needs --sync-secret.");
    public static final CaravanFlag SYNC_PUBLIC_ADDRESS = ROWS.row("--sync-public-address", "caravan.sync.public-address",
            STRING, Sections.SYNC)
            .describe("host:port peers dial to reach this member when it differs from --sync-host:--sync-port (NAT, "
                    + "a proxy); unset: the bound address.");
    public static final CaravanFlag SYNC_KUBERNETES = ROWS.row("--sync-kubernetes", "caravan.sync.kubernetes", SWITCH,
            Sections.SYNC)
            .defaultValue(false)
            .describe("Find the replicas with Hazelcast's Kubernetes discovery (the endpoints of "
                    + "--sync-kubernetes-service) instead of --sync-members.");
    public static final CaravanFlag SYNC_KUBERNETES_NAMESPACE = ROWS.row("--sync-kubernetes-namespace",
            "caravan.sync.kubernetes-namespace", STRING, Sections.SYNC)
            .describe("Namespace of --sync-kubernetes-service; unset: the pod's own.");
    public static final CaravanFlag SYNC_KUBERNETES_SERVICE = ROWS.row("--sync-kubernetes-service",
            "caravan.sync.kubernetes-service", STRING, Sections.SYNC)
            .defaultValue(DEFAULT_KUBERNETES_SERVICE)
            .describe("Headless service selecting the gateway pods; its endpoints are the replicas.");
    public static final CaravanFlag SYNC_CLUSTER_NAME = ROWS.row("--sync-cluster-name", "caravan.sync.cluster-name",
            STRING, Sections.SYNC)
            .defaultValue(DEFAULT_CLUSTER_NAME).pattern("\\S+", "a name without spaces")
            .describe("Replicas join only members with the same cluster name: one name per gateway fleet.");
    public static final CaravanFlag SYNC_SECRET = ROWS.row("--sync-secret", "caravan.sync.secret",
            STRING, Sections.SYNC)
            .describe("Key of the prefix and routing-key hashes replicas exchange; the same on every replica (in "
                    + "Kubernetes from a Secret, CARAVAN_SYNC_SECRET). Unset: keyed by the cluster name, which keeps "
                    + "no prompt unguessable, so the start fails unless --sync-host is a loopback address or "
                    + "--sync-allow-no-secret is given.");
    public static final CaravanFlag SYNC_ALLOW_NO_SECRET = ROWS.row("--sync-allow-no-secret",
            "caravan.sync.allow-no-secret", SWITCH, Sections.SYNC)
            .defaultValue(false)
            .describe("Start a sync member without --sync-secret on a non-loopback --sync-host (or none): anyone who "
                    + "reaches its port can then confirm a guessed prompt (warned at start).");

    /** The route file that exists only with {@code --sync hazelcast}. */
    public static final String ROUTES_FILE = "sync.camel.yaml";
    /** The feature's name in messages. */
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
    private Vertx vertx;
    private long sweepTimer = -1;

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

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
    public PolicyEnvironment policyEnvironment(Wiring w, PolicyEnvironment env) {
        GatewayConfig config = w.config();
        SyncConfig sync = SyncConfig.from(config);
        // options of other policies are ignored by fromOptions, so these read the cache_aware and manual settings
        CacheAwareConfig cacheAware = (CacheAwareConfig) PolicyConfig.fromOptions(
                PolicyName.CACHE_AWARE.wireName(), config.policyOptions());
        ManualConfig manual = (ManualConfig) PolicyConfig.fromOptions(PolicyName.MANUAL.wireName(),
                config.policyOptions());
        int maxIdle = manual.ttlEnabled() ? (int) Math.min(Integer.MAX_VALUE, manual.maxIdle().toSeconds()) : 0;
        node = new SyncNode(sync, new SyncCodec(), cacheAware.sharedPrefixOwner(), maxIdle, w.workers(), w.meters());
        return env.withFleet(new Fleet(node.prefixes(), node.sessions(), node.buckets(), node.activeBlocks()));
    }

    /**
     * Starts the member (joins, pulls the oldest peer's prefix index and, when the gateway consumes KV events, its KV
     * block index) and adds the sync routes' beans.
     */
    @Override
    public void wire(Wiring w) {
        if (node == null) {
            throw new IllegalStateException("policyEnvironment must run before wire");
        }
        node.useKv(w.get(KvFeature.KV_EVENT_INGESTOR, KvEventIngestor.class),
                w.get(KvFeature.KV_BLOCK_INDEX, KvBlockIndex.class));
        node.start();
        PolicyRegistry regular = w.get(Wiring.POLICY_REGISTRY, PolicyRegistry.class);
        w.bind(HAZELCAST_INSTANCE, node.instance());
        w.bind(DRAIN_DECISIONS, new DrainSyncDecisionsProcessor(node));
        w.bind(APPLY_PEER_DECISIONS, new ApplyPeerDecisionsProcessor(node));
        w.bind(REPORT_LOADS, new ReportSyncLoadsProcessor(node));
        w.bind(APPLY_PEER_LOADS, new ApplyPeerLoadsProcessor(node));
        w.bind(APPLY_PEER_SESSION, new ApplyPeerSessionProcessor(node, regular));
        w.bind(TRACK_MEMBERS, new TrackSyncMembersProcessor(node));
        w.bind(TOUCH_SESSIONS, new TouchSyncSessionsProcessor(node));
        w.bind(RECORD_FAILURE, new RecordSyncFailureProcessor(node.metrics()));
        PeerTenantUsage tenantUsage = new PeerTenantUsage(
                w.get(FlowFeature.TENANT_RATE_LIMITER, TenantRateLimiter.class),
                w.get(FlowFeature.TENANT_DIRECTORY, TenantDirectory.class));
        w.bind(REPORT_TENANT_USAGE, new ReportTenantUsageProcessor(node, tenantUsage));
        w.bind(APPLY_PEER_TENANT_USAGE, new ApplyPeerTenantUsageProcessor(node, tenantUsage));
        // the tenants' requests limits hold for the fleet: leases from shared buckets (QuotaLeases)
        QuotaLeases leases = new QuotaLeases(node.quotaBuckets(),
                node::memberCount, () -> System.nanoTime() / 1_000_000,
                () -> node.metrics().failed("quota-leases"));
        w.get(FlowFeature.TENANT_RATE_LIMITER, TenantRateLimiter.class).shareRequests(leases);
        vertx = w.vertx();
        sweepTimer = vertx.setPeriodic(QuotaLeases.LEASE_MILLIS, id -> leases.sweep());
        ResponseAffinity responses = w.get(EngineApiFeature.RESPONSE_AFFINITY, ResponseAffinity.class);
        ResponseOutbox outbox = new ResponseOutbox(node.metrics());
        responses.onStored(outbox::add);
        w.bind(DRAIN_RESPONSES, new DrainSyncResponsesProcessor(outbox, node.metrics()));
        w.bind(PUBLISH_RESPONSES, new PublishSyncResponsesProcessor(
                () -> node.instance().getMap(SyncMember.RESPONSES)));
        w.bind(APPLY_PEER_RESPONSE, new ApplyPeerResponseProcessor(responses, node.metrics()));
        List<PolicyRegistry> policies = List.of(regular,
                w.get(Wiring.PREFILL_POLICY_REGISTRY, PolicyRegistry.class),
                w.get(Wiring.DECODE_POLICY_REGISTRY, PolicyRegistry.class));
        Queue<String> flushed = new ConcurrentLinkedQueue<>();
        policies.forEach(p -> p.onCacheFlushed(worker -> flushed.add(worker.url())));
        w.bind(DRAIN_FLUSHES, new DrainSyncFlushesProcessor(flushed, node.metrics()));
        w.bind(APPLY_PEER_FLUSHES, new ApplyPeerFlushesProcessor(w.workers(), policies, node.metrics()));
    }

    @Override
    public void close() {
        if (sweepTimer >= 0) {
            vertx.cancelTimer(sweepTimer);
        }
        if (node != null) {
            node.close();
        }
    }

    /** This replica's node, for tests in this package. */
    SyncNode node() {
        return node;
    }
}
