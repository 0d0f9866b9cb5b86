package dev.caravan.policies;

import java.util.Locale;

/**
 * How cache_aware chooses among the healthy workers that share the least load, on a miss, when the imbalance guard
 * fires and on a stale fallback ({@code --min-load-tie-break}).
 */
public enum MinLoadTieBreak {

    /**
     * The worker with fewer processed selections, then the earlier in the candidate list: the later SGLang gateway's
     * rule (smg #1714). The default.
     */
    PROCESSED,

    /**
     * The worker whose tree holds the fewest characters for the model (the smallest cache footprint, SGLang's
     * original miss rule as a tie-break), then one drawn at random from the policy environment's generator: never
     * the candidate list's order, so equally loaded, equally empty workers share new work evenly.
     */
    FOOTPRINT;

    /** The rule's option value: {@code processed} or {@code footprint}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses an option value, case-insensitively. */
    public static MinLoadTieBreak fromWireName(String value) {
        for (MinLoadTieBreak r : values()) {
            if (r.wireName().equalsIgnoreCase(value.trim())) {
                return r;
            }
        }
        throw new IllegalArgumentException("must be processed or footprint, was '" + value + "'");
    }
}
