/**
 * An engine's prompt tokens, computed in the gateway: a model's chat template rendered as transformers renders it
 * ({@link dev.caravan.tokens.HfChatTemplate} on Jinjava, set up like Jinja2's sandbox, with the Python string and list
 * methods templates call) over the engine's message preprocessing ({@link dev.caravan.tokens.ChatInputs}), then
 * encoded with the model's {@code tokenizer.json} ({@link dev.caravan.tokens.HfTokenizer}, DJL's binding of Hugging
 * Face tokenizers) chunk by chunk through a bounded cache ({@link dev.caravan.tokens.ChunkedEncoder},
 * {@link dev.caravan.tokens.TokenChunkCache}). {@link dev.caravan.tokens.LocalModel} holds one model's files loaded.
 * Plain Java: no Camel, no HTTP; the gateway's {@code tokenizePrompt} step (dev.caravan.processors.tokens) uses it.
 */
package dev.caravan.tokens;
