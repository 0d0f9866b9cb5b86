package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.processors.flow.Tenant;
import dev.caravan.processors.flow.TenantDirectory;
import dev.caravan.processors.flow.TenantRateLimiter;

class PeerTenantUsageTest {

    private final TenantRateLimiter limiter = new TenantRateLimiter(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    private static byte[] entry(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private PeerTenantUsage usage(Path dir) throws Exception {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(file, "tenants:\n  acme:\n    requestsPerMinute: 10\n");
        return new PeerTenantUsage(limiter, TenantDirectory.load(file, TenantDirectory.ReloadObserver.NONE));
    }

    private int admitted(Tenant t) {
        int n = 0;
        while (limiter.acquire(t, 0).allowed()) {
            n++;
        }
        return n;
    }

    @Test
    void aPeersGrowthIsChargedOnceAndUnknownTenantsAndBadLinesAreSkipped(@TempDir Path dir) throws Exception {
        PeerTenantUsage usage = usage(dir);
        usage.apply("peer-1", entry("acme 3 0 0\nglobex 5 0 0\nacme-bad x 0 0\n"));
        usage.apply("peer-1", entry("acme 6 0 0\n"));      // 3 more, not 6
        usage.apply("peer-2", entry("acme 1 0 0\n"));

        Tenant acme = TenantDirectory.load(dir.resolve("tenants.yaml"), TenantDirectory.ReloadObserver.NONE)
                .current().tenants().get("acme");
        assertThat(admitted(acme)).isEqualTo(10 - 6 - 1);
    }

    @Test
    void aPeerThatLeftCountsFromZeroWhenItComesBack(@TempDir Path dir) throws Exception {
        PeerTenantUsage usage = usage(dir);
        usage.apply("peer-1", entry("acme 4 0 0\n"));
        usage.apply("peer-1", null);
        usage.apply("peer-1", entry("acme 2 0 0\n"));

        Tenant acme = TenantDirectory.load(dir.resolve("tenants.yaml"), TenantDirectory.ReloadObserver.NONE)
                .current().tenants().get("acme");
        assertThat(admitted(acme)).isEqualTo(10 - 4 - 2);
    }

    @Test
    void theReportIsSentOnlyWhenTheTotalsChanged(@TempDir Path dir) throws Exception {
        PeerTenantUsage usage = usage(dir);
        assertThat(usage.report()).isNull();
        Tenant acme = TenantDirectory.load(dir.resolve("tenants.yaml"), TenantDirectory.ReloadObserver.NONE)
                .current().tenants().get("acme");
        limiter.acquire(acme, 12);

        assertThat(new String(usage.report(), StandardCharsets.UTF_8)).isEqualTo("acme 1 12 0\n");
        assertThat(usage.report()).isNull();
        limiter.settle(acme, -2, 5);
        assertThat(new String(usage.report(), StandardCharsets.UTF_8)).isEqualTo("acme 1 10 5\n");
    }
}
