package dev.caravan.bench.report;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The ceilings' rows of the Markdown report: what one cache with the fleet's pooled KV capacity would have served,
 * under LRU and under optimal (Belady) eviction, in the hit column, and each as a share of Belady. The ceilings are
 * computed per run from the prompts and answers that run sent; an open-loop workload sends the same sequence every run,
 * so one value stands for all, and a closed-loop one (a chat's next turn waits for the answer) may differ slightly:
 * then the cell shows the range.
 */
final class CeilingRows {

    private CeilingRows() {
    }

    static void render(StringBuilder sb, BenchReport r) {
        String lru = cell(r.results(), PolicyResult::pooledLruHit);
        String belady = cell(r.results(), PolicyResult::beladyHit);
        if (belady == null) {
            return;
        }
        String lruOfBelady = cell(r.results(), p -> p.pooledLruHit() == null || p.beladyHit() == null
                || p.beladyHit() == 0 ? null : p.pooledLruHit() / p.beladyHit());
        sb.append("| *ceiling: pooled LRU* | | ").append(Objects.requireNonNullElse(lru, "–")).append(" | | | ")
                .append(Objects.requireNonNullElse(lruOfBelady, "–"))
                .append(" | | | | | | |\n");
        sb.append("| *ceiling: Belady (optimal eviction)* | | ").append(belady).append(" | | | 1.000 | | | | | | |\n");
    }

    static Optional<String> note(BenchReport r) {
        if (r.results().stream().allMatch(p -> p.beladyHit() == null)) {
            return Optional.empty();
        }
        BenchReport.EngineSetup e = r.engines();
        return Optional.of(String.format(Locale.ROOT, "Ceilings: one prefix cache of %d × %,d tokens (the engines' KV "
                + "pools pooled, %,d blocks of %d) fed this run's prompts and answers in the order they were sent, "
                + "warm-up included, counted over the measured requests; pooled LRU evicts the least recently used "
                + "block, Belady the block needed furthest in the future, an upper bound on what any router can serve "
                + "at that capacity (docs/design/ceilings.md). **of Belady** = hit / Belady.", e.count(),
                e.kvCapacityTokens(), e.count() * (e.kvCapacityTokens() / e.blockSize()), e.blockSize()));
    }

    /** The value shared by every run (to 3 decimals), or the range "min–max", or null when no run has it. */
    private static String cell(List<PolicyResult> results, Function<PolicyResult, Double> figure) {
        List<Double> values = results.stream().map(figure).filter(Objects::nonNull).toList();
        if (values.isEmpty()) {
            return null;
        }
        String min = MarkdownReport.f3(values.stream().min(Double::compare).orElseThrow());
        String max = MarkdownReport.f3(values.stream().max(Double::compare).orElseThrow());
        return min.equals(max) ? min : min + "–" + max;
    }
}
