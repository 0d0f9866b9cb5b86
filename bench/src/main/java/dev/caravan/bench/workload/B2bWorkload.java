package dev.caravan.bench.workload;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.caravan.bench.report.Analytic;
import dev.caravan.bench.report.AnalyticBounds;
import dev.caravan.sim.SimConfig;

/**
 * The b2b scenario (many business customers behind one model): W tenants, each with its own system prompt of L_p
 * tokens, followed by a short unique user turn; Poisson arrivals; tenants drawn from a {@link Popularity}.
 *
 * <p>Prompts are chat requests, sized in nominal tokens of 4 characters: the part shared by a tenant's requests
 * ({@code <|system|>\n} + system prompt + {@code \n<|user|>\n} in Caravan's chat format) is exactly L_p nominal tokens
 * and the rest of the prompt exactly {@code userTokens}. With the simulator's synthetic tokenizer those are the
 * engines' tokens (L_p a whole number of 16-token KV blocks when a multiple of 16); a real model's template and
 * tokenizer make them about one token per word, so the bench scales the pool below by the measured ratio
 * ({@code EngineModel}) and M prompts still fit.
 *
 * <p><b>KV sizing</b> ({@link #kvCapacityTokens}): an H100 replica of Llama-3-8B has a 428,569-token pool
 * ({@code SimConfig.DEFAULT_KV_CAPACITY_TOKENS}) of which live requests take about half, leaving room for M = 104
 * prompts of 2,048 tokens. The simulated engine shares one pool between live requests and cached blocks the same way,
 * but at this load its live requests hold far less than half the pool (60 req/s over 8 engines with a 16-token answer
 * is ~1.6 requests in flight per engine). So the pool is sized as {@code M × L_p} for cached prefixes plus the mean
 * live KV by Little's law: {@code (rate/N) × (prefill of the whole prompt + decode of the answer) × (prompt + answer
 * tokens)}, rounded up to a block. With the defaults that is 216,400 tokens instead of 428,569.
 */
public final class B2bWorkload implements Workload {

    private static final String SYSTEM_OPEN = "<|system|>\n";
    private static final String SYSTEM_CLOSE_USER_OPEN = "\n<|user|>\n";
    private static final String USER_CLOSE = "\n<|assistant|>\n";

    private final int tenants;
    private final int prefixTokens;
    private final int userTokens;
    private final int outputTokens;
    private final double rate;
    private final int requests;
    private final int warmup;
    private final Popularity popularity;
    private final long seed;
    private final int cachePrompts;
    private final TenantPrompts systemPrompts;

    /**
     * @param cachePrompts M, prefixes one engine's cache is sized to hold ({@link #kvCapacityTokens})
     */
    public B2bWorkload(int tenants, int prefixTokens, int userTokens, int outputTokens, double rate, int requests,
                       int warmup, String popularity, long seed, int cachePrompts) {
        if (prefixTokens < 16) {
            throw new IllegalArgumentException("prefix tokens must be >= 16, was " + prefixTokens);
        }
        if (userTokens < 12) {
            throw new IllegalArgumentException("user tokens must be >= 12, was " + userTokens);
        }
        if (requests < 1 || warmup < 0 || warmup >= requests) {
            throw new IllegalArgumentException("need 0 <= warmup < requests, was warmup " + warmup + ", requests "
                    + requests);
        }
        if (cachePrompts < 1) {
            throw new IllegalArgumentException("cache prompts must be >= 1, was " + cachePrompts);
        }
        this.tenants = tenants;
        this.prefixTokens = prefixTokens;
        this.userTokens = userTokens;
        this.outputTokens = outputTokens;
        this.rate = rate;
        this.requests = requests;
        this.warmup = warmup;
        this.popularity = Popularity.parse(popularity, tenants);
        this.seed = seed;
        this.cachePrompts = cachePrompts;
        // sized so the shared rendered prefix (system open + prompt + user open) is exactly prefixTokens
        this.systemPrompts = new TenantPrompts(tenants, seed, "tenant",
                4 * prefixTokens - SYSTEM_OPEN.length() - SYSTEM_CLOSE_USER_OPEN.length(),
                t -> "Tenant " + t + " assistant. ");
        if (!(rate > 0) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("rate must be > 0, was " + rate);
        }
    }

    @Override
    public String name() {
        return "b2b";
    }

    @Override
    public String description() {
        return String.format(Locale.ROOT, "b2b: %,d tenants × %,d-token system prompt + %d-token user turn, %d-token "
                + "answer, Poisson %.1f req/s, popularity %s, %,d requests (%,d warm-up), seed %d", tenants,
                prefixTokens, userTokens, outputTokens, rate, popularity.spec(), requests, warmup, seed);
    }

    @Override
    public Map<String, Object> parameters() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tenants", tenants);
        m.put("prefix_tokens", prefixTokens);
        m.put("user_tokens", userTokens);
        m.put("output_tokens", outputTokens);
        m.put("rate", rate);
        m.put("popularity", popularity.spec());
        m.put("requests", requests);
        m.put("warmup", warmup);
        m.put("seed", seed);
        m.put("cache_prompts", cachePrompts);
        return m;
    }

    @Override
    public Iterator<BenchRequest> arrivals() {
        return Arrivals.poissonTenants(rate, requests, popularity, seed, (i, at, tenant, picks) -> {
            List<Map<String, Object>> messages = new ArrayList<>(2);
            messages.add(BenchRequest.message("system", systemPrompts.get(tenant)));
            messages.add(BenchRequest.message("user", userTurn(i)));
            return BenchRequest.chat(at, messages, "tenant-" + tenant, outputTokens, prefixTokens, null);
        });
    }

    private String userTurn(int i) {
        StringBuilder sb = new StringBuilder("Q").append(i).append(' ');
        TextSource.append(sb, TextSource.seedOf(seed, "user", i), 4 * userTokens - USER_CLOSE.length() - sb.length());
        return sb.toString();
    }

    @Override
    public long expectedRequests() {
        return requests;
    }

    @Override
    public int defaultWarmup() {
        return warmup;
    }

    @Override
    public int kvCapacityTokens(int engines) {
        SimConfig d = SimConfig.builder().build();
        int promptTokens = prefixTokens + userTokens;
        double seconds = d.prefillOverheadMs() / 1e3 + promptTokens / d.prefillTokensPerSec()
                + (outputTokens - 1) * d.decodeMsPerToken() / 1e3;
        double liveTokens = rate / engines * seconds * (promptTokens + outputTokens);
        int block = d.blockSize();
        long tokens = (long) cachePrompts * prefixTokens + (long) Math.ceil(liveTokens);
        return (int) ((tokens + block - 1) / block * block);
    }

    @Override
    public AnalyticBounds analytic(int engines, double prefillTokensPerSec) {
        int block = SimConfig.DEFAULT_BLOCK_SIZE;
        double[] p = popularity.probabilities();
        double prefixBlocks = prefixTokens / (double) block;
        int unique = (prefixTokens + userTokens + outputTokens) / block - prefixTokens / block;
        double capacity = cachePrompts * prefixBlocks;
        return new AnalyticBounds(cachePrompts, tenants, engines, prefixTokens, rate,
                prefixTokens / prefillTokensPerSec,
                Analytic.lruHit(p, 1, 0, cachePrompts), Analytic.affinityHit(p, engines, 1, 0, cachePrompts),
                Analytic.lruHit(p, prefixBlocks, unique, capacity),
                Analytic.affinityHit(p, engines, prefixBlocks, unique, capacity), unique);
    }
}
