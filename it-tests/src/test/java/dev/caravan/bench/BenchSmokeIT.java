package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.bench.drive.NginxProcess;
import dev.caravan.bench.report.BenchReport;
import dev.caravan.bench.report.MarkdownReport;
import dev.caravan.bench.report.PolicyResult;

/**
 * A short run of every workload through the real gateway and simulated engines (2 engines, tens of requests, a high
 * time scale), checking that the report is produced and consistent with itself. No performance assertions.
 */
class BenchSmokeIT {

    @TempDir
    Path dir;

    private record Outcome(int exit, String stdout, String stderr, BenchReport report) {
    }

    private Outcome bench(String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--engines", "2", "--jvm-warmup-s", "0", "--request-timeout-s", "60",
                "--max-wall-s", "120",
                "--json", dir.resolve("report.json").toString(), "--out", dir.resolve("out").toString()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = BenchCli.run(all.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String stdout = out.toString(StandardCharsets.UTF_8);
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(stderr).isZero();
        return new Outcome(exit, stdout, stderr, BenchReport.readJson(dir.resolve("report.json")));
    }

    /** The invariants every report must satisfy. */
    private void assertConsistent(Outcome o, long requests, long warmup, String... labels) throws IOException {
        BenchReport r = o.report();
        assertThat(r.results()).extracting(PolicyResult::label).containsExactly(labels);
        assertThat(o.stdout()).isEqualTo(MarkdownReport.render(r));
        assertThat(Files.readString(dir.resolve("out").resolve(r.workload() + ".md"))).isEqualTo(o.stdout());
        for (PolicyResult p : r.results()) {
            assertThat(p.sent()).as(p.label()).isEqualTo(requests);
            assertThat(p.measured()).as(p.label()).isEqualTo(requests - warmup);
            assertThat(p.completed() + p.failed()).as(p.label()).isEqualTo(p.measured());
            assertThat(p.failed()).as(p.label()).isZero();
            assertThat(p.engineShares()).hasSize(2);
            assertThat(p.engineShares().stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(1.0, within(1e-9));
            assertThat(p.tokenHit()).isBetween(0.0, 1.0);
            assertThat(p.cachedTokens()).isBetween(0L, p.promptTokens());
            assertThat(p.tokenHit()).isCloseTo(p.cachedTokens() / (double) p.promptTokens(), within(1e-12));
            if (p.reuseHit() != null) {
                assertThat(p.reuseHit()).isBetween(0.0, 1.0);
            }
            if (p.prefixHit() != null) {
                assertThat(p.prefixHit()).isBetween(0.0, 1.0);
            }
            assertThat(p.ttftP50Ms()).isPositive().isLessThanOrEqualTo(p.ttftP99Ms());
            assertThat(p.e2eP50Ms()).isGreaterThanOrEqualTo(p.ttftP50Ms()).isLessThanOrEqualTo(p.e2eP99Ms());
            assertThat(p.gWaste()).isGreaterThanOrEqualTo(0.0);
            // what the engines served never exceeds what one clairvoyant cache of their pooled capacity could serve
            assertThat(p.beladyHit()).as(p.label()).isGreaterThanOrEqualTo(p.tokenHit())
                    .isGreaterThanOrEqualTo(p.pooledLruHit());
            assertThat(p.hitOfBelady()).as(p.label()).isBetween(0.0, 1.0);
            assertThat(o.stdout()).contains("| " + p.label() + " | " + String.format("%,d (0)", p.completed()));
        }
        for (String plot : List.of("-hit.png", "-ttft.png", "-share.png")) {
            byte[] png = Files.readAllBytes(dir.resolve("out").resolve(r.workload() + plot));
            assertThat(png).startsWith(0x89, 'P', 'N', 'G');
        }
    }

    @Test
    void b2bRunsEveryPolicyOnTheSameRequests() throws IOException {
        Outcome o = bench("b2b", "--tenants", "6", "--prefix-tokens", "128", "--requests", "24", "--warmup", "4",
                "--rate", "40", "--time-scale", "10", "--policies",
                "round_robin,consistent_hashing,cache_aware:min-prefix-match-chars=256@tuned");
        assertConsistent(o, 24, 4, "round_robin", "consistent_hashing", "tuned");
        assertThat(o.report().analytic()).isNotNull();
        assertThat(o.stdout()).contains("*analytic: round robin, M/W*").contains("| *ceiling: Belady");
        assertThat(o.report().results()).extracting(PolicyResult::beladyHit).containsOnly(
                o.report().results().get(0).beladyHit());
        PolicyResult ch = o.report().results().get(1);
        assertThat(ch.branches()).containsOnlyKeys("consistent_hashing:routing_key_hit");
        assertThat(o.report().results().get(2).settings()).containsEntry("min-prefix-match-chars", "256");
    }

    @Test
    void twoGatewaysRunNextToOneBehindTheRoundRobinClient() throws IOException {
        Outcome o = bench("b2b", "--tenants", "6", "--prefix-tokens", "128", "--requests", "24", "--warmup", "4",
                "--rate", "40", "--time-scale", "10", "--gateways", "2", "--policies", "manual");
        assertConsistent(o, 24, 4, "manual", "manual ×2");
        PolicyResult one = o.report().results().get(0);
        PolicyResult two = o.report().results().get(1);
        assertThat(one.gateways()).isEqualTo(1);
        assertThat(one.requestsPerReplica()).containsExactly(24L);
        assertThat(one.stickiness()).isEqualTo(1.0); // one gateway's manual never moves a key
        assertThat(two.gateways()).isEqualTo(2);
        assertThat(two.front()).isEqualTo("client");
        assertThat(two.requestsPerReplica()).containsExactly(12L, 12L);
        assertThat(two.settings()).containsEntry("gateways", "2 replicas, client round-robin front");
        assertThat(two.syncMetrics()).hasSize(2).allSatisfy(m -> assertThat(m).isEmpty());
        assertThat(o.stdout()).contains("N gateways next to one").contains("| manual ×2 | ")
                .contains("none (sync off)");
    }

    /**
     * {@code --sync hazelcast}: the two replicas of the N run form one cluster on loopback, so manual's first
     * assignment of each key is fleet-wide and every request sticks to its key's first engine, as behind one gateway;
     * each replica's {@code caravan_sync_*} samples reach the report.
     */
    @Test
    void twoSyncingGatewaysKeepManualsKeysWhereOneGatewayWould() throws IOException {
        Outcome o = bench("b2b", "--tenants", "6", "--prefix-tokens", "128", "--requests", "24", "--warmup", "4",
                "--rate", "40", "--time-scale", "10", "--gateways", "2", "--sync", "hazelcast", "--policies", "manual");
        assertConsistent(o, 24, 4, "manual", "manual ×2");
        PolicyResult one = o.report().results().get(0);
        PolicyResult two = o.report().results().get(1);
        assertThat(one.settings()).doesNotContainKey("sync");
        assertThat(one.syncMetrics()).hasSize(1).allSatisfy(m -> assertThat(m).isEmpty());
        assertThat(two.settings()).containsEntry("sync",
                "hazelcast, 2 members on loopback (static list, ephemeral ports)");
        assertThat(two.stickiness()).isEqualTo(1.0);
        assertThat(two.syncMetrics()).hasSize(2)
                .allSatisfy(m -> assertThat(m).containsEntry("caravan_sync_members", 2.0));
        assertThat(o.stdout()).contains("| manual ×2 | ").contains("`caravan_sync_members` 2 / 2");
    }

    @Test
    void multiturnSendsEveryTurnOfEverySession() throws IOException {
        Outcome o = bench("multiturn", "--requests", "12", "--turns", "3", "--prefix-tokens", "64", "--user-tokens",
                "16", "--output-tokens", "8", "--think-s", "0.5", "--warmup", "3", "--time-scale", "10",
                "--policies", "round_robin,cache_aware");
        assertConsistent(o, 12, 3, "round_robin", "cache_aware");
        PolicyResult ca = o.report().results().get(1);
        assertThat(ca.reusableTokens()).isPositive();
    }

    @Test
    void ragMeasuresThePreambleAsTheSharedPrefix() throws IOException {
        Outcome o = bench("rag", "--tenants", "3", "--prefix-tokens", "128", "--doc-tokens", "256", "--requests",
                "16", "--warmup", "4", "--rate", "20", "--time-scale", "10", "--policies", "cache_aware");
        assertConsistent(o, 16, 4, "cache_aware");
        assertThat(o.report().results().get(0).prefixTokens()).isEqualTo(12 * 128);
    }

    @Test
    void mooncakeTraceReplaysEveryRecord() throws IOException {
        Path trace = dir.resolve("trace.jsonl");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 15; i++) {
            sb.append("{\"timestamp\": ").append(i * 100).append(", \"input_length\": ").append(600 + 10 * i)
                    .append(", \"output_length\": 4, \"hash_ids\": [0, ").append(i % 3 + 1).append(", ")
                    .append(100 + i).append("]}\n");
        }
        Files.writeString(trace, sb);
        Outcome o = bench("trace", trace.toString(), "--time-scale", "10", "--warmup", "3", "--policies",
                "round_robin,consistent_hashing");
        assertConsistent(o, 15, 3, "round_robin", "consistent_hashing");
        assertThat(o.report().parameters()).containsEntry("format", "mooncake");
    }

    @Test
    void azureTraceReplaysEveryRow() throws IOException {
        Path trace = dir.resolve("trace.csv");
        StringBuilder sb = new StringBuilder("TIMESTAMP,ContextTokens,GeneratedTokens\n");
        for (int i = 0; i < 12; i++) {
            sb.append(String.format("2023-11-16 18:15:%02d.5000000,%d,3%n", 10 + i, 200 + i));
        }
        Files.writeString(trace, sb);
        Outcome o = bench("trace", trace.toString(), "--time-scale", "20", "--tenants", "2", "--prefix-tokens", "64",
                "--warmup", "2", "--policies", "round_robin");
        assertConsistent(o, 12, 2, "round_robin");
    }

    @Test
    void whatIfModeReplaysThePolicyCodeWithoutHttp() throws IOException {
        Outcome o = bench("b2b", "--mode", "whatif", "--tenants", "6", "--prefix-tokens", "128", "--requests", "40",
                "--warmup", "10", "--policies", "round_robin,cache_aware,nginx");
        assertConsistent(o, 40, 10, "round_robin", "cache_aware");
        assertThat(o.report().mode()).isEqualTo("whatif");
        assertThat(o.report().notes()).anyMatch(n -> n.startsWith("nginx_rr skipped"));
        assertThat(o.report().results().get(0).engineShares()).containsExactly(0.5, 0.5);
    }

    @Test
    void nginxPeersRunWhenNginxIsInstalled() throws IOException {
        assumeTrue(NginxProcess.find().isPresent(), "nginx is not installed");
        Outcome o = bench("b2b", "--tenants", "6", "--prefix-tokens", "128", "--requests", "20", "--warmup", "4",
                "--rate", "40", "--time-scale", "10", "--policies", "nginx,nginx:least_conn,nginx:hash");
        assertConsistent(o, 20, 4, "nginx_rr", "nginx_least_conn", "nginx_hash");
    }

    @Test
    void badArgumentsEndWithAOneLineMessage() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = BenchCli.run(new String[] {"b2b", "--policies", "cache_aware:cache-treshold=1"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cache-treshold").doesNotContain("\tat ");
    }
}
