package dev.caravan.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import dev.caravan.bench.workload.AzureTrace;
import dev.caravan.bench.workload.B2bWorkload;
import dev.caravan.bench.workload.MooncakeTrace;
import dev.caravan.bench.workload.MultiturnWorkload;
import dev.caravan.bench.workload.NoisyNeighbourWorkload;
import dev.caravan.bench.workload.RagWorkload;
import dev.caravan.bench.workload.Workload;

import picocli.CommandLine.Option;

/**
 * The workload options of {@code ./caravan bench}. An option left unset takes the chosen workload's default (listed in
 * each description), so one flag such as {@code --tenants} means the same thing in every workload that has tenants.
 */
public final class WorkloadOptions {

    @Option(names = "--tenants", description = "Tenants (b2b 1,000; rag 200; noisy 4 quiet ones; Azure trace overlay "
            + "1,000).")
    Integer tenants;
    @Option(names = "--prefix-tokens", description = "Tokens of a tenant's system prompt / preamble (b2b and rag "
            + "2,048; multiturn per-session system prompt 1,024; Azure trace overlay 512).")
    Integer prefixTokens;
    @Option(names = "--user-tokens", description = "Tokens of the user turn (b2b 32; rag question 32; multiturn 128).")
    Integer userTokens;
    @Option(names = "--output-tokens", description = "max_tokens of each answer (b2b 16; rag 64; multiturn 128).")
    Integer outputTokens;
    @Option(names = "--rate", description = "Requests per simulated second (b2b 60; rag 8; multiturn 20: sessions "
            + "start at rate/turns; noisy 1 per quiet tenant).")
    Double rate;
    @Option(names = "--requests", description = "Requests to send (b2b 15,000; rag 4,000; multiturn 4,000 = "
            + "sessions × turns; noisy 3,000).")
    Integer requests;
    @Option(names = "--warmup", description = "Requests left out of the statistics (b2b a third; rag a quarter; "
            + "multiturn, noisy and traces a fifth).")
    Integer warmup;
    @Option(names = "--popularity", description = "Tenant popularity: uniform, zipf:S or hot:SHARE (default uniform).")
    String popularity;
    @Option(names = "--seed", description = "Seed of arrivals, tenants and text (default 1).")
    Long seed;
    @Option(names = "--cache-prompts", description = "b2b: M, prefixes one engine's KV pool is sized to hold when "
            + "--kv-capacity-tokens is not given (default 104, the design document's).")
    Integer cachePrompts;
    @Option(names = "--turns", description = "multiturn: turns per session (default 8).")
    Integer turns;
    @Option(names = "--shared-tokens", description = "multiturn: preamble every session shares (default 128).")
    Integer sharedTokens;
    @Option(names = "--sequential", description = "multiturn: one session at a time, each starting a think time "
            + "after the previous one's last answer (--rate is then ignored).")
    boolean sequential;
    @Option(names = "--think-s", description = "multiturn: mean think time between turns, simulated s (default 5).")
    Double thinkSeconds;
    @Option(names = "--doc-tokens", description = "rag: mean retrieved-document tokens, uniform in [d/2, 3d/2] "
            + "(default 6,000).")
    Integer docTokens;
    @Option(names = "--limit", description = "trace: replay only the first N records (default all).")
    Integer limit;
    @Option(names = "--speedup", description = "trace: divide trace timestamps by this (more load; default 1).")
    Double speedup;
    @Option(names = "--key-blocks", description = "Mooncake trace: routing key = the first K hash ids (default 2; "
            + "block 0 is shared by every conversation request).")
    Integer keyBlocks;
    @Option(names = "--noisy-factor", description = "noisy: the noisy tenant sends this many times what each quiet "
            + "tenant sends (default 10).")
    Double noisyFactor;
    @Option(names = "--prompt-tokens", description = "noisy: tokens of each (unique) prompt (default 2,048).")
    Integer promptTokens;
    @Option(names = "--max-output-tokens", description = "trace: cap max_tokens (default: as traced).")
    Integer maxOutputTokens;

    /** Builds the workload {@code kind} ({@code b2b}, {@code multiturn}, {@code rag}, {@code trace} with a file). */
    public Workload create(String kind, Path file) {
        long s = seed == null ? 1 : seed;
        String pop = popularity == null ? "uniform" : popularity;
        switch (kind.toLowerCase(Locale.ROOT)) {
            case "b2b" -> {
                int n = or(requests, 15_000);
                return new B2bWorkload(or(tenants, 1000), or(prefixTokens, 2048), or(userTokens, 32),
                        or(outputTokens, 16), or(rate, 60.0), n, or(warmup, n / 3), pop, s, or(cachePrompts, 104));
            }
            case "multiturn" -> {
                int t = or(turns, 8);
                int n = or(requests, 4000);
                return new MultiturnWorkload(Math.max(1, n / t), t, or(sharedTokens, 128), or(prefixTokens, 1024),
                        or(userTokens, 128), or(outputTokens, 128), or(rate, 20.0), or(thinkSeconds, 5.0),
                        or(warmup, n / 5), s, sequential);
            }
            case "rag" -> {
                int n = or(requests, 4000);
                return new RagWorkload(or(tenants, 200), or(prefixTokens, 2048), or(docTokens, 6000),
                        or(userTokens, 32), or(outputTokens, 64), or(rate, 8.0), n, or(warmup, n / 4), pop, s);
            }
            case "noisy" -> {
                int n = or(requests, 3000);
                return new NoisyNeighbourWorkload(or(tenants, 4), or(rate, 1.0), or(noisyFactor, 10.0),
                        or(promptTokens, 2048), or(outputTokens, 16), n, or(warmup, n / 5), s);
            }
            case "trace" -> {
                if (file == null || !Files.isRegularFile(file)) {
                    throw new IllegalArgumentException("trace needs a FILE (Mooncake .jsonl or Azure .csv), got "
                            + file);
                }
                if (file.toString().endsWith(".csv")) {
                    return new AzureTrace(file, or(limit, 0), or(speedup, 1.0), or(tenants, 1000),
                            or(prefixTokens, 512), pop, or(maxOutputTokens, 0), or(warmup, -1), s);
                }
                return new MooncakeTrace(file, or(limit, 0), or(speedup, 1.0), or(keyBlocks, 2),
                        or(maxOutputTokens, 0), or(warmup, -1), s);
            }
            default -> throw new IllegalArgumentException("workload must be b2b, multiturn, rag, noisy or trace, was '"
                    + kind + "'");
        }
    }

    private static <T> T or(T value, T fallback) {
        return value == null ? fallback : value;
    }
}
