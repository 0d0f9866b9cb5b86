/**
 * Text the routing core works on: Caravan's chat routing text ({@link dev.caravan.policies.text.ChatTemplate}, the
 * whole conversation in a fixed, stable format that cache_aware's approximate tree matches on), the pseudo-tokenizer,
 * the {@link dev.caravan.policies.text.Tokenizer} contract, and {@link dev.caravan.policies.text.PromptTokens}: the
 * engine's own prompt token ids with the request's LoRA adapter and {@code cache_salt}, computed by the gateway
 * (docs/tokens.md) and handed to policies as {@code SelectionContext#prompt()}. The engine simulator shares none of
 * this code; it agrees with the gateway through real artifacts or documented schemes (docs/design/routing-core.md).
 */
package dev.caravan.policies.text;
