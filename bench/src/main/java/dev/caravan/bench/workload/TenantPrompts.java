package dev.caravan.bench.workload;

import java.util.function.IntFunction;

/**
 * Each tenant's shared prompt prefix (a system prompt or preamble), rendered on first use and kept: a readable
 * per-tenant header followed by seeded filler text, {@code chars} characters in all, so a tenant's prefix is the same
 * text in every request (and every replay) while different tenants share nothing. Not thread-safe: a workload's
 * iterator is used by one thread.
 */
final class TenantPrompts {

    private final long seed;
    private final String seedLabel;
    private final int chars;
    private final IntFunction<String> header;
    private final String[] prompts;

    /**
     * @param seedLabel what the filler's seed is derived from with the tenant number ({@link TextSource#seedOf})
     * @param chars     the prefix length in characters, header included
     * @param header    the header of tenant {@code t}
     */
    TenantPrompts(int tenants, long seed, String seedLabel, int chars, IntFunction<String> header) {
        this.seed = seed;
        this.seedLabel = seedLabel;
        this.chars = chars;
        this.header = header;
        this.prompts = new String[tenants];
    }

    /** Tenant {@code t}'s prefix. */
    String get(int t) {
        String s = prompts[t];
        if (s == null) {
            StringBuilder sb = new StringBuilder(header.apply(t));
            TextSource.append(sb, TextSource.seedOf(seed, seedLabel, t), chars - sb.length());
            s = sb.toString();
            prompts[t] = s;
        }
        return s;
    }
}
