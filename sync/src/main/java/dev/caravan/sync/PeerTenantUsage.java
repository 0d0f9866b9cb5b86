package dev.caravan.sync;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.caravan.processors.flow.Tenant;
import dev.caravan.processors.flow.TenantDirectory;
import dev.caravan.processors.flow.TenantRateLimiter;

/**
 * Fleet-wide tenant quotas: each replica publishes its running totals per tenant (requests, input tokens, output
 * tokens, from {@link TenantRateLimiter#localUsage}) as its entry of a Hazelcast replicated map, and charges each peer's
 * growth since its last entry to its own buckets ({@link TenantRateLimiter#chargePeers}). Every replica's buckets then
 * drain at the fleet's rate, so the fleet admits a tenant's limit a minute plus at most what the replicas admit
 * between two reports.
 *
 * <p>An entry is the member id's totals as UTF-8 lines {@code tenant requests input output}; tenant names come from the
 * tenants file, which has no spaces in names that matter here (a name with a space is skipped). A tenant the local file
 * does not know is ignored; a peer that left is forgotten (a later entry of it counts from zero again).
 */
final class PeerTenantUsage {

    private final TenantRateLimiter limiter;
    private final TenantDirectory directory;
    private final Map<String, Map<String, long[]>> seen = new ConcurrentHashMap<>();
    private volatile String lastReport = "";

    PeerTenantUsage(TenantRateLimiter limiter, TenantDirectory directory) {
        this.limiter = limiter;
        this.directory = directory;
    }

    /** This replica's totals, encoded, or null when they did not change since the last report. */
    byte[] report() {
        StringBuilder sb = new StringBuilder();
        limiter.localUsage().forEach((tenant, u) -> {
            if (tenant.indexOf(' ') < 0 && tenant.indexOf('\n') < 0) {
                sb.append(tenant).append(' ').append(u[0]).append(' ').append(u[1]).append(' ').append(u[2])
                        .append('\n');
            }
        });
        String text = sb.toString();
        if (text.isEmpty() || text.equals(lastReport)) {
            return null;
        }
        lastReport = text;
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A peer's entry: charges what grew since its previous one; null (entry removed) forgets the peer. */
    void apply(String peer, byte[] entry) {
        if (entry == null) {
            seen.remove(peer);
            return;
        }
        Map<String, long[]> totals = decode(entry);
        Map<String, long[]> before = seen.put(peer, totals);
        Map<String, Tenant> tenants = directory.current().tenants();
        totals.forEach((name, now) -> {
            Tenant t = tenants.get(name);
            long[] was = before == null ? null : before.get(name);
            if (t != null) {
                limiter.chargePeers(t, now[0] - (was == null ? 0 : was[0]), now[1] - (was == null ? 0 : was[1]),
                        now[2] - (was == null ? 0 : was[2]));
            }
        });
    }

    private static Map<String, long[]> decode(byte[] entry) {
        Map<String, long[]> out = new LinkedHashMap<>();
        for (String line : new String(entry, StandardCharsets.UTF_8).split("\n")) {
            String[] f = line.split(" ");
            if (f.length == 4) {
                try {
                    out.put(f[0], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])});
                } catch (NumberFormatException e) {
                    // a line this version cannot read: skipped, the others still count
                }
            }
        }
        return new HashMap<>(out);
    }
}
