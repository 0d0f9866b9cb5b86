/**
 * The gateway's {@code tokenizePrompt} step (docs/tokens.md): the engine's own prompt tokens, from the model's files
 * ({@link dev.caravan.tokens.LocalModel} of the tokens module, per model in
 * {@link dev.caravan.processors.tokens.LocalPrompts}) or from the engine's own {@code /tokenize}
 * ({@link dev.caravan.processors.tokens.EngineTokenizer}).
 * {@link dev.caravan.processors.tokens.TokenizePromptProcessor} publishes them with the request's LoRA adapter and
 * {@code cache_salt} ({@link dev.caravan.tokens.PromptKeys}) for the policies;
 * {@link dev.caravan.processors.tokens.TokenizerCheck} warns when an engine tokenizes differently.
 */
package dev.caravan.processors.tokens;
