package dev.caravan.policies.kv;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One KV-cache group of a model as configured ({@code --kv-groups}), for engines whose events do not describe it: its
 * index ({@code group_idx}), its kind as vLLM names it ({@code full_attention}, {@code sliding_window},
 * {@code chunked_local}, {@code mamba}) and its span in tokens (a sliding window's window, a chunked-local group's
 * chunk; 0 for the others).
 */
public record KvGroupSpec(int group, String kind, int span) {

    public KvGroupSpec {
        if (group < 0 || group >= RankBlocks.GROUP_BITS) {
            throw new IllegalArgumentException("group must be in [0, " + (RankBlocks.GROUP_BITS - 1) + "], was "
                    + group);
        }
        GroupLayout.Kind k = GroupLayout.Kind.of(kind);
        if (kind == null || k == GroupLayout.Kind.OTHER) {
            throw new IllegalArgumentException("group " + group + ": kind must be full_attention, sliding_window,"
                    + " chunked_local or mamba, was " + kind);
        }
        if ((k == GroupLayout.Kind.SLIDING_WINDOW || k == GroupLayout.Kind.CHUNKED_LOCAL) ? span < 1 : span != 0) {
            throw new IllegalArgumentException("group " + group + " (" + kind + "): "
                    + (span < 1 ? "needs its window or chunk in tokens" : "takes no span"));
        }
    }

    /**
     * Parses {@code GROUP:KIND[:SPAN]} entries separated by commas, e.g. {@code 0:full_attention,1:chunked_local:8192}.
     *
     * @throws IllegalArgumentException naming the entry that is wrong
     */
    public static List<KvGroupSpec> parseList(String text) {
        List<KvGroupSpec> out = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return out;
        }
        for (String entry : text.split(",")) {
            String[] parts = entry.trim().split(":");
            if (parts.length < 2 || parts.length > 3) {
                throw new IllegalArgumentException("'" + entry.trim() + "' is not GROUP:KIND[:SPAN]");
            }
            try {
                out.add(new KvGroupSpec(Integer.parseInt(parts[0].trim()), parts[1].trim(),
                        parts.length == 3 ? Integer.parseInt(parts[2].trim()) : 0));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + entry.trim() + "': GROUP and SPAN must be integers");
            }
        }
        return out;
    }

    /** The model key of {@link #parseByModel} entries that name no model: every model without its own entry. */
    public static final String EVERY_MODEL = "*";

    /**
     * Parses per-model group lists: {@code MODEL=LIST} entries separated by {@code ;}, where LIST is as in
     * {@link #parseList}; an entry without {@code MODEL=} (or with {@code *=}) applies to every other model.
     */
    public static Map<String, List<KvGroupSpec>> parseByModel(String text) {
        Map<String, List<KvGroupSpec>> out = new HashMap<>();
        if (text == null || text.isBlank()) {
            return out;
        }
        for (String entry : text.split(";")) {
            if (entry.isBlank()) {
                continue;
            }
            int eq = entry.indexOf('=');
            String model = eq < 0 ? EVERY_MODEL : entry.substring(0, eq).trim();
            List<KvGroupSpec> groups = parseList(eq < 0 ? entry : entry.substring(eq + 1));
            if (out.put(model.isEmpty() ? EVERY_MODEL : model, groups) != null) {
                throw new IllegalArgumentException("model '" + model + "' is listed twice");
            }
        }
        return out;
    }
}
