/**
 * The engine's own prompt tokens (docs/tokens.md): a model's chat template rendered as transformers renders it
 * ({@link dev.caravan.processors.tokens.HfChatTemplate} on Jinjava, set up like Jinja2's sandbox) over the engine's
 * message preprocessing ({@link dev.caravan.processors.tokens.ChatInputs}), tokenized with the model's
 * {@code tokenizer.json} ({@link dev.caravan.processors.tokens.LocalModel}, per model in
 * {@link dev.caravan.processors.tokens.LocalPrompts}); or the engine's own {@code /tokenize}
 * ({@link dev.caravan.processors.tokens.EngineTokenizer}). The route step
 * {@link dev.caravan.processors.tokens.TokenizePromptProcessor} publishes them with the request's LoRA adapter and
 * {@code cache_salt} ({@link dev.caravan.processors.tokens.PromptKeys}) for the policies;
 * {@link dev.caravan.processors.tokens.TokenizerCheck} warns when an engine tokenizes differently.
 */
package dev.caravan.processors.tokens;
