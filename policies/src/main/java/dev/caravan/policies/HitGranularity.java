package dev.caravan.policies;

import java.util.HashMap;
import java.util.Map;

/**
 * The characters an engine's prefix-cache hit comes in, per model, for cache_aware's approximate tree: a hybrid model
 * whose engine keeps its Mamba state only at block boundaries (Qwen3.5 on vLLM: 528-token blocks) serves a cached
 * prefix only up to the last boundary, so a match shorter than one block saves nothing there. The tree's match is cut
 * down to a multiple of the model's granularity before the hit test ({@code --hit-granularity-chars}).
 *
 * @param byModel model → characters (≥ 1)
 * @param every   characters for models without an entry; 1 = no rounding
 */
public record HitGranularity(Map<String, Integer> byModel, int every) {

    /** No rounding for any model. */
    public static final HitGranularity NONE = new HitGranularity(Map.of(), 1);

    public HitGranularity {
        byModel = Map.copyOf(byModel);
        if (every < 1 || byModel.values().stream().anyMatch(v -> v < 1)) {
            throw new IllegalArgumentException("hit granularity must be >= 1 character, was " + every + " / "
                    + byModel);
        }
    }

    /**
     * Parses {@code CHARS} (every model) or {@code MODEL=CHARS} entries separated by {@code ;} (an entry without
     * {@code MODEL=} sets every other model); blank = none.
     */
    public static HitGranularity parse(String text) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        Map<String, Integer> byModel = new HashMap<>();
        int every = 1;
        for (String entry : text.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            int eq = entry.indexOf('=');
            String value = (eq < 0 ? entry : entry.substring(eq + 1)).trim();
            int chars;
            try {
                chars = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("hit granularity '" + entry.trim() + "': CHARS must be an integer");
            }
            if (chars < 1) {
                throw new IllegalArgumentException("hit granularity '" + entry.trim() + "': CHARS must be >= 1");
            }
            if (eq < 0) {
                every = chars;
            } else {
                byModel.put(entry.substring(0, eq).trim(), chars);
            }
        }
        return new HitGranularity(byModel, every);
    }

    /** {@code chars} cut down to a multiple of the model's granularity. */
    public long round(String model, long chars) {
        int g = model == null ? every : byModel.getOrDefault(model, every);
        return g == 1 ? chars : chars - chars % g;
    }
}
