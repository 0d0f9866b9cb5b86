package dev.caravan.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.caravan.components.http.ServerEventLoops;
import dev.caravan.gateway.GatewayBeans;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.flow.RateVerdict;
import dev.caravan.processors.flow.Tenant;
import dev.caravan.processors.flow.TenantDirectory;
import dev.caravan.processors.flow.TenantRateLimiter;
import dev.caravan.sync.SyncFeature;

/**
 * What a tenant's rate limits cost the request path ({@code limitTenantRate}'s {@link TenantRateLimiter#acquire}, one
 * request and a 100-token prompt): {@code sync=none}, each replica alone; {@code sync=hazelcast}, a one-member fleet
 * whose requests limit is leased from the shared bucket (the sync module's {@code QuotaLeases}). The limit is high
 * enough that the benchmark never runs out, so this is the path of a request with a unit of its replica's lease; the
 * calls to the shared bucket run in the background.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
public class TenantQuotaBenchmark {

    private static final String LOOPBACK = "127.0.0.1";

    @Param({"none", "hazelcast"})
    public String sync;

    private GatewayBeans gateway;
    private TenantRateLimiter limiter;
    private Tenant tenant;

    @Setup
    public void setUp() throws IOException {
        Path tenants = Files.createTempFile("caravan-tenants", ".yaml");
        Files.writeString(tenants, "tenants:\n  acme:\n    requestsPerMinute: 1000000000000\n"
                + "    inputTokensPerMinute: 1000000000000\n");
        tenants.toFile().deleteOnExit();
        GatewayConfig config = GatewayConfig.defaults().with(FlowFeature.TENANTS_FILE, tenants.toString());
        if (sync.equals(CoreFlags.SYNC_HAZELCAST)) {
            int port = ServerEventLoops.freePort(LOOPBACK);
            config = config.with(CoreFlags.SYNC_MODE, CoreFlags.SYNC_HAZELCAST)
                    .with(SyncFeature.SYNC_HOST, LOOPBACK)
                    .with(SyncFeature.SYNC_PORT, Integer.toString(port))
                    .with(SyncFeature.SYNC_MEMBERS, LOOPBACK + ":" + port)
                    .with(SyncFeature.SYNC_CLUSTER_NAME, "quota-bench-" + ProcessHandle.current().pid());
        }
        gateway = new GatewayBeans(config, null, null);
        limiter = (TenantRateLimiter) gateway.beans().get(FlowFeature.TENANT_RATE_LIMITER);
        tenant = ((TenantDirectory) gateway.beans().get(FlowFeature.TENANT_DIRECTORY)).current().tenants().get("acme");
    }

    @Benchmark
    public RateVerdict acquire() {
        return limiter.acquire(tenant, 100);
    }

    @TearDown
    public void tearDown() {
        gateway.close();
    }
}
