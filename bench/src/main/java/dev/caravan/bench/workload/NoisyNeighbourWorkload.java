package dev.caravan.bench.workload;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;

/**
 * A noisy neighbour among quiet tenants: {@code quietTenants} tenants each sending {@code quietRate} requests per
 * simulated second and one tenant, {@value #NOISY}, sending {@code noisyFactor} times that, all Poisson. Every prompt
 * is unique text of {@code promptTokens} tokens (no shared prefix, so the prefix cache cannot absorb the noisy tenant's
 * load) and each request names its tenant in {@code X-Caravan-Tenant} ({@code quiet-0} ...), for a tenants file that
 * trusts it.
 *
 * <p>{@link #alone()} is the same workload without the noisy tenant: the quiet tenants' requests are identical (same
 * times, same text), so their latency alone is the baseline the shared runs are compared with.
 */
public final class NoisyNeighbourWorkload implements Workload {

    /** The noisy tenant's name. */
    public static final String NOISY = "noisy";
    /** Prefix of the quiet tenants' names. */
    public static final String QUIET = "quiet-";

    private static final String USER_OPEN = "<|user|>\n";
    private static final String USER_CLOSE = "\n<|assistant|>\n";

    private final int quietTenants;
    private final double quietRate;
    private final double noisyFactor;
    private final int promptTokens;
    private final int outputTokens;
    private final int requests;
    private final int warmup;
    private final long seed;
    private final boolean withNoisy;

    /**
     * @param quietRate requests per simulated second of each quiet tenant
     * @param requests  requests of the whole workload (noisy included); {@link #alone()} sends the quiet part of them
     * @param warmup    the first requests of the whole workload left out of the statistics
     */
    public NoisyNeighbourWorkload(int quietTenants, double quietRate, double noisyFactor, int promptTokens,
                                  int outputTokens, int requests, int warmup, long seed) {
        this(quietTenants, quietRate, noisyFactor, promptTokens, outputTokens, requests, warmup, seed, true);
    }

    private NoisyNeighbourWorkload(int quietTenants, double quietRate, double noisyFactor, int promptTokens,
                                   int outputTokens, int requests, int warmup, long seed, boolean withNoisy) {
        if (quietTenants < 1) {
            throw new IllegalArgumentException("quiet tenants must be >= 1, was " + quietTenants);
        }
        if (!(quietRate > 0) || Double.isInfinite(quietRate) || !(noisyFactor > 0) || Double.isInfinite(noisyFactor)) {
            throw new IllegalArgumentException("rate and noisy factor must be > 0, were " + quietRate + ", "
                    + noisyFactor);
        }
        if (promptTokens < 16 || outputTokens < 1) {
            throw new IllegalArgumentException("need prompt tokens >= 16 and output tokens >= 1, were "
                    + promptTokens + ", " + outputTokens);
        }
        if (requests < 1 || warmup < 0 || warmup >= requests) {
            throw new IllegalArgumentException("need 0 <= warmup < requests, was warmup " + warmup + ", requests "
                    + requests);
        }
        this.quietTenants = quietTenants;
        this.quietRate = quietRate;
        this.noisyFactor = noisyFactor;
        this.promptTokens = promptTokens;
        this.outputTokens = outputTokens;
        this.requests = requests;
        this.warmup = warmup;
        this.seed = seed;
        this.withNoisy = withNoisy;
    }

    /** The quiet tenants' requests only, the same ones at the same times. */
    public NoisyNeighbourWorkload alone() {
        return new NoisyNeighbourWorkload(quietTenants, quietRate, noisyFactor, promptTokens, outputTokens, requests,
                warmup, seed, false);
    }

    /** Requests per simulated second of the whole workload (noisy included). */
    public double totalRate() {
        return quietRate * (quietTenants + noisyFactor);
    }

    /** Requests per simulated second of the noisy tenant. */
    public double noisyRate() {
        return quietRate * noisyFactor;
    }

    @Override
    public String name() {
        return "noisy";
    }

    @Override
    public String description() {
        return String.format(Locale.ROOT, "noisy neighbour%s: %d quiet tenants × %.2f req/s + tenant %s at %.0f× "
                + "(%.2f req/s), Poisson, unique %,d-token prompts, %d-token answers, %,d requests (%,d warm-up), "
                + "seed %d", withNoisy ? "" : " (quiet tenants alone)", quietTenants, quietRate, NOISY, noisyFactor,
                noisyRate(), promptTokens, outputTokens, requests, warmup, seed);
    }

    @Override
    public Map<String, Object> parameters() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("quiet_tenants", quietTenants);
        m.put("quiet_rate", quietRate);
        m.put("noisy_factor", noisyFactor);
        m.put("prompt_tokens", promptTokens);
        m.put("output_tokens", outputTokens);
        m.put("requests", requests);
        m.put("warmup", warmup);
        m.put("seed", seed);
        m.put("with_noisy", withNoisy);
        return m;
    }

    @Override
    public Iterator<BenchRequest> arrivals() {
        Iterator<BenchRequest> all = Arrivals.indexed(requests, new Maker()::make);
        return withNoisy ? all : new Iterator<>() {
            private BenchRequest next = advance();

            private BenchRequest advance() {
                while (all.hasNext()) {
                    BenchRequest r = all.next();
                    if (!NOISY.equals(r.tenant())) {
                        return r;
                    }
                }
                return null;
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public BenchRequest next() {
                if (next == null) {
                    throw new NoSuchElementException();
                }
                BenchRequest r = next;
                next = advance();
                return r;
            }
        };
    }

    /** One Poisson stream of the total rate, each arrival the noisy tenant's with its share of the rate. */
    private final class Maker {
        private final PoissonArrivals arrivals = new PoissonArrivals(totalRate(), new SplittableRandom(seed));
        private final SplittableRandom picks = new SplittableRandom(seed ^ Arrivals.PICKS_SALT);

        BenchRequest make(int i) {
            long at = arrivals.next();
            double u = picks.nextDouble() * (quietTenants + noisyFactor);
            String tenant = u < quietTenants ? QUIET + (int) u : NOISY;
            StringBuilder sb = new StringBuilder(tenant).append(" Q").append(i).append(' ');
            TextSource.append(sb, TextSource.seedOf(seed, "noisy", i),
                    4 * promptTokens - USER_OPEN.length() - USER_CLOSE.length() - sb.length());
            return BenchRequest.chat(at, List.of(BenchRequest.message("user", sb.toString())), tenant, outputTokens,
                    0, null).withTenant(tenant);
        }
    }

    @Override
    public long expectedRequests() {
        return withNoisy ? requests : Math.round(requests * quietTenants / (quietTenants + noisyFactor));
    }

    /** The alone run leaves out the quiet requests among the whole workload's first {@code warmup}. */
    @Override
    public int defaultWarmup() {
        if (withNoisy) {
            return warmup;
        }
        Iterator<BenchRequest> all = Arrivals.indexed(warmup, new Maker()::make);
        int quiet = 0;
        while (all.hasNext()) {
            quiet += NOISY.equals(all.next().tenant()) ? 0 : 1;
        }
        return quiet;
    }

    @Override
    public int maxModelLen() {
        return promptTokens + outputTokens + 64;
    }
}
