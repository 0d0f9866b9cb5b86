package dev.caravan.bench.workload;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Retrieval-augmented requests: a tenant's shared preamble of L_p tokens, then a long retrieved document nobody else
 * sends and a short question. The shared part is a small fraction of the prompt (2,048 of ~8,000 tokens by default, a
 * match ratio of ~0.25). SGLang's ratio threshold of 0.3 calls every such request a miss although its prefix is worth a
 * 2,048-token prefill (docs/design/upstream.md, "SGLang: cache_aware").
 *
 * <p>Prompts are chat requests: system = preamble (sized so {@code <|system|>\n} + preamble + {@code \n<|user|>\n} is
 * exactly L_p tokens), user = document + question. Document lengths are uniform in
 * {@code [docTokens/2, 3·docTokens/2]}.
 */
public final class RagWorkload implements Workload {

    private final int tenants;
    private final int prefixTokens;
    private final int docTokens;
    private final int userTokens;
    private final int outputTokens;
    private final double rate;
    private final int requests;
    private final int warmup;
    private final Popularity popularity;
    private final long seed;
    private final TenantPrompts preambles;

    public RagWorkload(int tenants, int prefixTokens, int docTokens, int userTokens, int outputTokens, double rate,
                       int requests, int warmup, String popularity, long seed) {
        if (prefixTokens < 16 || docTokens < 2 || userTokens < 4) {
            throw new IllegalArgumentException("need prefix tokens >= 16, doc tokens >= 2, user tokens >= 4, were "
                    + prefixTokens + ", " + docTokens + ", " + userTokens);
        }
        if (requests < 1 || warmup < 0 || warmup >= requests || !(rate > 0)) {
            throw new IllegalArgumentException("need rate > 0 and 0 <= warmup < requests, were " + rate + ", "
                    + warmup + ", " + requests);
        }
        this.tenants = tenants;
        this.prefixTokens = prefixTokens;
        this.docTokens = docTokens;
        this.userTokens = userTokens;
        this.outputTokens = outputTokens;
        this.rate = rate;
        this.requests = requests;
        this.warmup = warmup;
        this.popularity = Popularity.parse(popularity, tenants);
        this.seed = seed;
        // 21 = the rendered "<|system|>\n" and "\n<|user|>\n" around the preamble, so the shared prefix is L_p tokens
        this.preambles = new TenantPrompts(tenants, seed, "preamble", 4 * prefixTokens - 21,
                t -> "Knowledge base " + t + ". ");
    }

    @Override
    public String name() {
        return "rag";
    }

    @Override
    public String description() {
        return String.format(Locale.ROOT, "rag: %,d tenants × %,d-token preamble + a unique %,d–%,d-token document + "
                + "%d-token question, %d-token answer, Poisson %.1f req/s, popularity %s, %,d requests (%,d warm-up), "
                + "seed %d", tenants, prefixTokens, docTokens / 2, docTokens * 3 / 2, userTokens, outputTokens, rate,
                popularity.spec(), requests, warmup, seed);
    }

    @Override
    public Map<String, Object> parameters() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tenants", tenants);
        m.put("prefix_tokens", prefixTokens);
        m.put("doc_tokens", docTokens);
        m.put("user_tokens", userTokens);
        m.put("output_tokens", outputTokens);
        m.put("rate", rate);
        m.put("popularity", popularity.spec());
        m.put("requests", requests);
        m.put("warmup", warmup);
        m.put("seed", seed);
        return m;
    }

    @Override
    public Iterator<BenchRequest> arrivals() {
        return Arrivals.poissonTenants(rate, requests, popularity, seed, (i, at, tenant, picks) -> {
            int doc = docTokens / 2 + picks.nextInt(docTokens + 1);
            StringBuilder user = new StringBuilder("Document ").append(i).append(":\n");
            TextSource.append(user, TextSource.seedOf(seed, "doc", i), 4 * doc);
            user.append("\nQuestion: ");
            TextSource.append(user, TextSource.seedOf(seed, "question", i), 4 * userTokens);
            return BenchRequest.chat(at, List.of(BenchRequest.message("system", preambles.get(tenant)),
                    BenchRequest.message("user", user.toString())), "tenant-" + tenant, outputTokens, prefixTokens,
                    null);
        });
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
    public int maxModelLen() {
        return prefixTokens + docTokens * 3 / 2 + userTokens + outputTokens + 64;
    }
}
