package dev.caravan.tokens;

import java.util.Locale;

/**
 * Which engine's chat preprocessing and {@code /tokenize} API the gateway reproduces ({@code --tokens-engine}).
 * <ul>
 *   <li>{@link #VLLM}: tools passed to the template whole ({@code {"type", "function"}}); {@code /tokenize} takes
 *       {@code messages} (rendered and encoded by the engine) or {@code prompt};</li>
 *   <li>{@link #SGLANG}: tools passed as their {@code function} objects, filtered by {@code tool_choice};
 *       {@code /tokenize} takes a {@code prompt} only, so for chat the gateway renders the template and the engine
 *       encodes the rendering without special tokens.</li>
 * </ul>
 */
public enum EngineDialect {
    VLLM,
    SGLANG;

    /** The flag's value name. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static EngineDialect parse(String value) {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
    }
}
