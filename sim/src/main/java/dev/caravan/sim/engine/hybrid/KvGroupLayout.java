package dev.caravan.sim.engine.hybrid;

import java.util.ArrayList;
import java.util.List;

/**
 * The KV-cache groups of the emulated model, parsed from {@code --kv-groups}: group specs joined by {@code +}, in
 * group order ({@code group_idx} 0 first).
 * <ul>
 *   <li>{@code full}: full attention;</li>
 *   <li>{@code swa:W}: sliding-window attention over W tokens (gpt-oss: {@code full+swa:128});</li>
 *   <li>{@code chunked:C}: chunked local attention in chunks of C tokens (Llama 4: {@code full+chunked:8192});</li>
 *   <li>{@code mamba:B} or {@code mamba:B:R}: Mamba state in blocks of B tokens, which must be the engine's block
 *       size (vLLM gives the attention groups the Mamba page's block, e.g. 528 for Qwen3.5), keeping a cached state
 *       at every R-th block boundary and at the one a repeat of the prompt resumes from (default 1: every
 *       boundary; {@link MambaRule}).</li>
 * </ul>
 * {@code full} alone is the single-group engine ({@link #isSingleGroup()}), which keeps no group fields on the wire.
 */
public record KvGroupLayout(String spec, List<GroupRule> rules) {

    /** A single full-attention group: today's engine. */
    public static final String SINGLE = "full";

    public KvGroupLayout {
        rules = List.copyOf(rules);
    }

    /** Whether this is one full-attention group, served by the single-group pool. */
    public boolean isSingleGroup() {
        return rules.size() == 1 && rules.get(0).isFullAttention();
    }

    /**
     * @param blockSize the engine's block size, every group's
     * @throws IllegalArgumentException naming the bad part and the syntax
     */
    public static KvGroupLayout parse(String spec, int blockSize) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("kvGroups must be set, e.g. full or full+swa:128, was '" + spec + "'");
        }
        List<GroupRule> rules = new ArrayList<>();
        for (String part : spec.trim().split("\\+", -1)) {
            rules.add(group(part.trim(), blockSize, spec));
        }
        return new KvGroupLayout(spec.trim(), rules);
    }

    private static GroupRule group(String part, int blockSize, String spec) {
        String[] f = part.split(":", -1);
        try {
            switch (f[0]) {
                case "full" -> {
                    if (f.length == 1) {
                        return new FullAttentionRule(blockSize);
                    }
                }
                case "swa" -> {
                    if (f.length == 2) {
                        return new SlidingWindowRule(blockSize, Integer.parseInt(f[1]));
                    }
                }
                case "chunked" -> {
                    if (f.length == 2) {
                        return new ChunkedLocalRule(blockSize, Integer.parseInt(f[1]));
                    }
                }
                case "mamba" -> {
                    if (f.length == 2 || f.length == 3) {
                        int b = Integer.parseInt(f[1]);
                        if (b != blockSize) {
                            throw new IllegalArgumentException("kvGroups " + part + " needs block size " + b
                                    + " (vLLM gives every group the Mamba block), was " + blockSize);
                        }
                        return new MambaRule(b, f.length == 3 ? Integer.parseInt(f[2]) : MambaRule.DENSE);
                    }
                }
                default -> {
                }
            }
        } catch (NumberFormatException e) {
            // falls through to the syntax message
        }
        throw new IllegalArgumentException("kvGroups part '" + part + "' of '" + spec
                + "' is not full, swa:W, chunked:C or mamba:B[:R]");
    }
}
