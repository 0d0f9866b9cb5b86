package dev.caravan.sim.text;

import java.util.List;
import java.util.Map;

/**
 * Renders a chat request into the prompt text an engine tokenizes (vLLM then encodes it without adding special
 * tokens: the template holds them). Thread-safe.
 */
public interface ChatRenderer {

    /**
     * @param messages            the request's {@code messages} (maps with {@code role}, {@code content}, ...)
     * @param tools               the request's {@code tools}, or null
     * @param addGenerationPrompt the request's {@code add_generation_prompt} (vLLM's default true)
     * @param kwargs              the request's {@code chat_template_kwargs} (e.g. {@code enable_thinking}), never null
     * @throws IllegalArgumentException when the conversation cannot be rendered (the message says why)
     */
    String render(List<?> messages, List<?> tools, boolean addGenerationPrompt, Map<String, Object> kwargs);

    /** Shown in the engine's server info. */
    String name();
}
